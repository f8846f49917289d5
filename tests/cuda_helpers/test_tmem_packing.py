"""8- and 16-bit data in tensor memory and TIRx's full-address `allocated_addr=` (sema/memory/tmem_packing.py):
the tcgen05 addresses tirxc computes for regions of packed views, as lane << 16 | column offsets from
the allocation's base (the slot `tcgen05.alloc` writes)."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import transpile
from transpiler import ir
from transpiler.ir.walk import all_exprs

KERNEL = Path(__file__).resolve().parent / "kernels" / "tmem_packed.tx"


def _offsets(cuda_name: str, text: str) -> list[ir.Expr]:
    result = transpile(text, "packed.tx")
    assert result.ok, [d.message for d in result.diagnostics]
    body = result.program.kernels[0].body
    calls = [e for e in all_exprs(body) if isinstance(e, ir.Call) and cuda_name in e.func]
    offsets = []
    for call in calls:
        taddr = call.args[0] if "_st_" in call.func else call.args[-1]
        assert isinstance(taddr, ir.BinOp) and taddr.op == "+", taddr  # slot[0] + offset
        assert isinstance(taddr.a, ir.Load) and taddr.a.storage.name.startswith("tmem_addr")
        offsets.append(taddr.b)
    return offsets


def test_packed_views_address_columns_of_two_halves_and_four_bytes():
    st = _offsets("tcgen05_st", KERNEL.read_text())
    # halves[32:64, 16:32] at tmem_addr + 32: lane 32, column 32 + 16 / 2
    # bytes_[64:96, 32:64] at tmem_addr + 64: lane 64, column 64 + 32 / 4
    assert [o.value for o in st] == [(32 << 16) | 40, (64 << 16) | 72]


def test_a_column_offset_and_the_full_address_spellings_agree():
    text = KERNEL.read_text()
    full = _offsets("tcgen05_st", text)
    relative = _offsets("tcgen05_st", text.replace("allocated_addr=tmem_addr + 32", "allocated_addr=32")
                        .replace("allocated_addr=tmem_addr + 64", "allocated_addr=64"))
    assert [o.value for o in full] == [o.value for o in relative]


def test_allocated_addr_reads_back_the_full_address():
    result = transpile(KERNEL.read_text(), "packed.tx")
    assert result.ok, [d.message for d in result.diagnostics]
    calls = [e for e in all_exprs(result.program.kernels[0].body)
             if isinstance(e, ir.Call) and e.func == "tirx_cuda_get_tmem_addr"]
    assert len(calls) == 1
    address = calls[0].args[0]  # bytes_.allocated_addr[0]: the slot plus the view's first column, 64
    assert isinstance(address, ir.BinOp) and address.op == "+" and isinstance(address.a, ir.Load)
    assert address.a.storage.name.startswith("tmem_addr") and address.b.value == 64


def test_the_full_address_names_the_slot_when_the_allocation_is_elsewhere():
    """Code that only issues tcgen05 instructions (the allocation made by other code, as in TIRx's
    codegen tests) names its slot in `allocated_addr=slot + c`: the same addresses as with the
    `tcgen05.alloc` in the kernel."""
    text = KERNEL.read_text()
    alloc = "T.ptx.tcgen05.alloc(T.address_of(tmem_addr), n_cols=128, cta_group=1)"
    assert alloc in text
    without = text.replace(alloc, "T.cuda.warp_sync()")
    assert [o.value for o in _offsets("tcgen05_st", without)] == [o.value for o in _offsets("tcgen05_st", text)]
