"""The C++ entry points render each kind of the launch description's checks in one place
(transpiler/codegen/host_cpp_checks.py), with the description's message."""
from __future__ import annotations

from transpiler.codegen import host_cpp_checks
from transpiler.ir.launch_checks import MESSAGES, Check, CheckKind


def test_every_check_kind_has_its_renderer_and_every_case_is_rendered_or_said_impossible():
    assert set(host_cpp_checks._RENDERERS) == set(CheckKind)
    cases = {tuple(key.split(".")) for key in MESSAGES}
    assert host_cpp_checks.NOT_RENDERED <= cases
    for kind, case in cases - host_cpp_checks.NOT_RENDERED:
        assert host_cpp_checks._RENDERERS[CheckKind(kind)] is not host_cpp_checks._none, (kind, case)


def test_a_message_becomes_a_printf_format_with_its_operands_as_text():
    check = Check(CheckKind.ALIGNMENT, "pointer", "A", (("kernel", "k%"), ("arg", 'A"'), ("align", 16),
                                                         ("offset_bytes", 0)))
    assert host_cpp_checks.render(check, {"name": "a"}) == [
        'if (reinterpret_cast<::std::uintptr_t>(a) % 16u != 0) return detail::fail(::cudaErrorInvalidValue, '
        '"k%%(): argument \'A\\"\' must be 16-byte aligned, its data pointer is %p", static_cast<const void*>(a));']
