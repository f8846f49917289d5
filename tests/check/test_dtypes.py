"""DType equality, hashing and the facts set once per dtype (dtypes.py).

The checker compares and hashes dtypes for every expression node, so DType
tries identity first (parse_dtype interns them) and keeps is_float, is_int,
is_bool, is_signed and int_bounds as plain attributes; these tests pin that
the shortcuts still mean what the fields say."""
from transpiler.target.dtypes import BOOL, FLOAT32, INT32, UINT32, VOID, DType, int_range, known_dtype_names, parse_dtype


def test_dtypes_are_interned():
    assert parse_dtype("float32") is FLOAT32
    assert parse_dtype("f32") is FLOAT32
    assert parse_dtype("float16x2") is parse_dtype("float16x2")


def test_equality_and_hash_follow_the_fields_not_identity():
    twin = DType("float32", "float", 32)
    assert twin is not FLOAT32
    assert twin == FLOAT32 and not twin != FLOAT32
    assert hash(twin) == hash(FLOAT32)
    assert {FLOAT32: "found"}[twin] == "found"
    assert FLOAT32 != INT32
    assert FLOAT32 != DType("float32", "float", 32, 2)
    assert FLOAT32 != DType("float32", "int", 32)
    assert FLOAT32 != "float32"


def test_facts_agree_with_the_kind():
    names = known_dtype_names() + ["float32x4", "int8x4", "bfloat16x2"]
    for dtype in [parse_dtype(name) for name in names] + [VOID]:
        assert dtype.is_float == (dtype.kind == "float"), dtype
        assert dtype.is_int == (dtype.kind in ("int", "uint")), dtype
        assert dtype.is_bool == (dtype.kind == "bool"), dtype
        assert dtype.is_signed == (dtype.kind == "int"), dtype


def test_int_range():
    assert int_range(INT32) == (-2 ** 31, 2 ** 31 - 1)
    assert int_range(UINT32) == (0, 2 ** 32 - 1)
    assert int_range(parse_dtype("int8")) == (-128, 127)
    assert int_range(BOOL) == (0, 1)
    low, high = int_range(VOID)
    assert low > high  # void holds no value
