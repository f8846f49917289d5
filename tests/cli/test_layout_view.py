"""`tirxc layout`: the worked layout examples of the seed, the reference and the
upstream docs (docs/tirx/layout.rst) with their exact values, the four-step
definition of `layout.apply` as an independent oracle, the spellings a .tx file
accepts, errors with exact `<layout>` positions and exit codes, and the SVG."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from math import prod

import pytest

from transpiler.cli import main as cli

SVG_NS = "{http://www.w3.org/2000/svg}"
DOCS_FRAGMENT = "TileLayout(S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid)"


def layout(capsys, *args) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `tirxc layout ARGS`, run in this process."""
    with pytest.raises(SystemExit) as stop:
        cli.main(["layout", *map(str, args)])
    out, err = capsys.readouterr()
    return stop.value.code or 0, out, err


def cells(capsys, *args) -> dict[tuple[int, ...], dict[str, list[int]]]:
    """index -> {axis: values} from `--json`."""
    status, out, err = layout(capsys, *args, "--json")
    assert status == 0, err
    data = json.loads(out)
    assert len(data["cells"]) == prod(data["shape"])
    return {tuple(cell.pop("index")): cell for cell in data["cells"]}


def offsets(capsys, *args) -> dict[tuple[int, ...], int]:
    grid = cells(capsys, *args)
    assert all(len(cell["m"]) == 1 for cell in grid.values())
    return {index: cell["m"][0] for index, cell in grid.items()}


# ---- the seed: one (4, 8) buffer declared four ways --------------------------------------------

def test_seed_column_major_grid_exactly(capsys):
    status, out, err = layout(capsys, "S[(4, 8):(1, 4)]")
    assert status == 0 and err == ""
    assert out == ("S[(4, 8):(1, 4)] over shape (4, 8)\n"
                   "\n"
                   "m: the memory offset of each element\n"
                   "     0  1  2  3  4  5  6  7\n"
                   "0 |  0  4  8 12 16 20 24 28\n"
                   "1 |  1  5  9 13 17 21 25 29\n"
                   "2 |  2  6 10 14 18 22 26 30\n"
                   "3 |  3  7 11 15 19 23 27 31\n")


@pytest.mark.parametrize("text, expected", [
    ("TileLayout(S[(4, 8):(1, 4)])", lambda i, j: j * 4 + i),    # column-major: B_ptr[((j * 4) + i)]
    ("TileLayout(S[(4, 8):(16, 1)])", lambda i, j: i * 16 + j),  # row stride 16: B_ptr[((i * 16) + j)]
    ("S[4, 8]", lambda i, j: i * 8 + j),                          # dense row-major: B_ptr[((i * 8) + j)]
    ("S[4, 8] + 64", lambda i, j: i * 8 + j + 64),                # the elem_offset=64 view, as a layout offset
])
def test_seed_buffer_declarations(capsys, text, expected):
    assert offsets(capsys, text, "--shape", 4, 8) == {(i, j): expected(i, j) for i in range(4) for j in range(8)}


def test_default_layout_is_row_major_over_the_shape(capsys):
    assert offsets(capsys, '"default"', "--shape", 4, 8) == {(i, j): i * 8 + j for i in range(4) for j in range(8)}


# ---- the upstream docs' case study: an (8, 16) register tile on two warps, replicated ------

def test_docs_register_tile_table(capsys):
    grid = cells(capsys, DOCS_FRAGMENT, "--shape", 8, 16)
    table = {  # (i, j): laneid, warpid (x2), m -- the table of docs/tirx/layout.rst
        (0, 0): (0, [5, 9], 0), (0, 1): (0, [5, 9], 1), (0, 2): (1, [5, 9], 0),
        (1, 0): (4, [5, 9], 0), (0, 8): (0, [6, 10], 0), (7, 15): (31, [6, 10], 1)}
    for index, (lane, warps, m) in table.items():
        assert grid[index] == {"laneid": [lane], "warpid": warps, "m": [m]}, index
    for (i, j), cell in grid.items():  # the closed form the docs derive
        assert cell == {"laneid": [4 * i + (j // 2) % 4], "warpid": [j // 8 + 5, j // 8 + 9], "m": [j % 2]}


def test_docs_register_tile_text_shows_both_warps(capsys):
    status, out, _ = layout(capsys, DOCS_FRAGMENT, "--shape", 8, 16)
    assert status == 0
    warps = out.split("warpid: the warp that holds each element\n")[1].splitlines()
    assert warps[1] == "0 |  5,9  5,9  5,9  5,9  5,9  5,9  5,9  5,9 6,10 6,10 6,10 6,10 6,10 6,10 6,10 6,10"
    assert "a cell with several values: the element has copies (replica R[...])" in out


def test_docs_tensor_memory_placement(capsys):
    grid = cells(capsys, "S[(2,128,112):(112@TCol,1@TLane,1@TCol)]")  # own shape (2, 128, 112)
    for index, lane, col in [((0, 0, 0), 0, 0), ((0, 5, 3), 5, 3), ((1, 0, 0), 0, 112), ((1, 127, 111), 127, 223)]:
        assert grid[index] == {"TLane": [lane], "TCol": [col]}


# ---- the docs' swizzle: 128B swizzle of an (8, 64) float16 tile -----------------------------

@pytest.mark.parametrize("text", [
    "ComposeLayout(3, 3, 3, S[8, 64])",
    "ComposeLayout(3, 3, 3, TileLayout(S[(8, 64):(64@m, 1@m)]))",
    "ComposeLayout(per_element=3, swizzle_len=3, atom_len=3, tile_layout=TileLayout(S[8, 64]))",
])
def test_docs_swizzled_addresses(capsys, text):
    expected = {(i, j): 64 * i + 8 * ((j // 8) ^ i) + j % 8 for i in range(8) for j in range(64)}
    assert offsets(capsys, text) == expected
    assert [expected[i, 0] for i in range(8)] == [72 * i for i in range(8)]


def test_docs_swizzle_spreads_a_column_over_banks(capsys):
    # fp16 (per_element 3 keeps 16-byte runs: 16-bit elements): column 0 in banks 0, 4, ..., 28
    swizzled = cells(capsys, "ComposeLayout(3, 3, 3, S[8, 64])", "--banks")
    assert [swizzled[i, 0]["bank"] for i in range(8)] == [[4 * i] for i in range(8)]
    assert cells(capsys, "ComposeLayout(3, 3, 3, S[8, 64])", "--banks", "--dtype", "float16") == swizzled
    plain = cells(capsys, "S[8, 64]", "--banks", "--dtype", "float16")  # no swizzle: bank = j // 2 on every row
    assert all(plain[i, j]["bank"] == [j // 2 % 32] for i in range(8) for j in range(64))


def test_banks_text_section(capsys):
    status, out, _ = layout(capsys, "ComposeLayout(3, 3, 3, S[8, 64])", "--banks")
    assert status == 0
    bank = out.split("bank: the shared-memory bank of each element (16-bit elements, 32 banks of 4 bytes)\n")[1]
    assert [line.split("|")[1].split()[0] for line in bank.splitlines()[1:9]] == [str(4 * i) for i in range(8)]


# ---- the reference's register layouts (3.5) ---------------------------------------------------

def test_reference_lane_owns_a_row(capsys):
    grid = cells(capsys, "TileLayout(S[(32, 8) : (1 @ laneid, 1)])")
    assert grid == {(i, j): {"laneid": [i], "m": [j]} for i in range(32) for j in range(8)}


def test_reference_mma_accumulator_fragment(capsys):
    # D_FRAG over the (16, 8) m16n8 accumulator: PTX's c0..c3 of lane 4*groupID + threadID_in_group
    # hold rows groupID and groupID + 8, columns 2*threadID_in_group + (0, 1)
    grid = cells(capsys, "TileLayout(S[(2, 8, 4, 2) : (2, 4 @ laneid, 1 @ laneid, 1)])", "--shape", 16, 8)
    assert grid == {(i, j): {"laneid": [4 * (i % 8) + j // 2], "m": [2 * (i // 8) + j % 2]}
                    for i in range(16) for j in range(8)}


def test_reference_mma_b_fragment(capsys):
    # B_FRAG_K8 over the (8, 8) k x n operand: lane 4*n + k // 2 holds k = 2*(lane % 4) + (0, 1)
    grid = cells(capsys, "TileLayout(S[(4, 2, 8) : (1 @ laneid, 1, 4 @ laneid)])", "--shape", 8, 8)
    assert grid == {(k, n): {"laneid": [4 * n + k // 2], "m": [k % 2]} for k in range(8) for n in range(8)}


# ---- the four steps of the docs as an oracle, over shapes other than the extents ------------

def docs_apply(shard, replica, offset, coord, shape):
    """docs/tirx/layout.rst, forward mapping: flatten, split, accumulate + offset, replicate."""
    flat = sum(x * prod(shape[d + 1:]) for d, x in enumerate(coord))
    extents = [e for e, _, _ in shard]
    base: dict[str, int] = {}
    for k, (e, s, a) in enumerate(shard):
        base[a] = base.get(a, 0) + (flat // prod(extents[k + 1:])) % e * s
    for a, v in offset:
        base[a] = base.get(a, 0) + v
    copies = [base]
    for e, s, a in replica:
        copies = [{**c, a: c.get(a, 0) + r * s} for c in copies for r in range(e)]
    return copies


ORACLE_CASES = [
    ("S[(4, 8):(1, 4)]", [(4, 1, "m"), (8, 4, "m")], [], [], [(2, 16), (32,), (8, 4), (2, 2, 8)]),
    ("S[(3, 5):(7, 1)] + 2", [(3, 7, "m"), (5, 1, "m")], [], [("m", 2)], [(5, 3), (15,)]),
    ("S[(2, 6):(1, 2)]", [(2, 1, "m"), (6, 2, "m")], [], [], [(3, 4), (4, 3)]),
    (DOCS_FRAGMENT, [(8, 4, "laneid"), (2, 1, "warpid"), (4, 1, "laneid"), (2, 1, "m")],
     [(2, 4, "warpid")], [("warpid", 5)], [(8, 16), (16, 8), (128,)]),
    ("S[(2, 8, 4, 2) : (2, 4 @ laneid, 1 @ laneid, 1)]", [(2, 2, "m"), (8, 4, "laneid"), (4, 1, "laneid"), (2, 1, "m")],
     [], [], [(16, 8), (8, 16), (4, 4, 8)]),
]


@pytest.mark.parametrize("text, shard, replica, offset, shapes", ORACLE_CASES)
def test_matches_the_docs_definition(capsys, text, shard, replica, offset, shapes):
    for shape in shapes:
        grid = cells(capsys, text, "--shape", *shape)
        for index, cell in grid.items():
            copies = docs_apply(shard, replica, offset, index, shape)
            for axis, values in cell.items():
                assert values == sorted({c.get(axis, 0) for c in copies}), (shape, index, axis)


# ---- spellings and option forms --------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "S[(4, 8):(1, 4)]",
    "TileLayout(S[(4, 8):(1, 4)])",
    "T.TileLayout(T.S[(4, 8):(1, 4)])",
    "layout=TileLayout(S[(4, 8):(1, 4)])",
    "  TileLayout(S[(4, 8) : (1 @ m, 4 @ m)])  ",
    "TileLayout(S[(4, 8):(1, 4)] + 0)",
])
def test_spellings_give_the_same_offsets(capsys, text):
    assert offsets(capsys, text) == {(i, j): j * 4 + i for i in range(4) for j in range(8)}


@pytest.mark.parametrize("shape_args", [("--shape", "2", "16"), ("--shape", "2,16"), ("--shape=2,16",)])
def test_shape_option_forms(capsys, shape_args):
    status, out, err = layout(capsys, "S[(4, 8):(1, 4)]", *shape_args)
    assert status == 0, err
    assert out.startswith("S[(4, 8):(1, 4)] over shape (2, 16)\n")


def test_shape_option_before_the_layout(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["layout", "--shape", "2", "16", "S[(4, 8):(1, 4)]"])
    assert (stop.value.code or 0) == 0
    assert capsys.readouterr().out.startswith("S[(4, 8):(1, 4)] over shape (2, 16)\n")


def test_one_dimensional_shapes_wrap_at_32(capsys):
    status, out, _ = layout(capsys, "S[40]")
    lines = out.splitlines()
    assert status == 0 and lines[3].split() == list(map(str, range(32)))
    assert lines[4].startswith(" 0 |  0  1  2") and lines[5] == "32 | 32 33 34 35 36 37 38 39"


def test_rank_three_shows_one_grid_per_leading_index(capsys):
    status, out, _ = layout(capsys, "S[(2, 3, 4):(1, 8, 2)]")
    assert status == 0
    assert "[0, :, :]\n     0  1  2  3\n0 |  0  2  4  6\n" in out
    assert "\n\n[1, :, :]\n     0  1  2  3\n0 |  1  3  5  7\n1 |  9 11 13 15\n2 | 17 19 21 23\n" in out


# ---- errors: the one renderer, exact positions in `<layout>`, exit 1 --------------------------------

@pytest.mark.parametrize("text, first_line", [
    ("S[(4, 8):(1, 4)", "<layout>:1:2: error[E0103]: '[' was never closed"),
    ("S[(4, 8):(1, 4@lane)]", "<layout>:1:16: error[E0300]: unknown name `lane`"),
    ("   S[(4, 8):(1, 4@lane)]", "<layout>:1:16: error[E0300]: unknown name `lane`"),
    ("S[(4, 8):\n(1, 4@lane)]", "<layout>:2:7: error[E0300]: unknown name `lane`"),
    ("S[(4, 8):(-1, 4)]", "<layout>:1:1: error[E0517]: layout stride -1 is negative"),
    ("S[(4, 8):(1,)]", "<layout>:1:1: error[E0517]: 2 extents but 1 stride"),
    ("S[4]; S[5]", "<layout>:1:7: error[E0517]: a layout is one expression; this is a second statement"),
    ("import os", "<layout>:1:1: error[E0517]: expected a layout expression such as `S[(4, 8):(1, 4)]`"),
    ("R[2:1]", "<layout>:1:1: error[E0517]: a layout needs a shard `S[...]`"),
    ("4 @ laneid", "<layout>:1:1: error[E0517]: `layout=` takes a `TileLayout(...)` or \"default\""),
    ("ComposeLayout(3, 4, 3, S[8, 64])", "<layout>:1:1: error[E0517]: a swizzle needs 0 <= swizzle_len <= "
                                         "atom_len, got swizzle_len=4, atom_len=3"),
    ("ComposeLayout(3, 3, 3, S[8:1@laneid])", "<layout>:1:24: error[E0517]: `ComposeLayout` wraps a memory "
                                              "`TileLayout(S[...])`"),
    ("S[(4, 8):(1@laneid, 4@TLane)]", "<layout>:1:1: error[E0517]: `TLane` / `TCol` axes are for tensor memory"),
    ("S[4:1@bx]", "<layout>:1:1: error[E0518]: register buffers distributed over `bx` are not supported"),
    ("S[4.0]", "<layout>:1:3: error[E0303]: float literal `4.0` used as an int32 value"),
    ("S[4] + R[0:1]", "<layout>:1:10: error[E0517]: layout extent 0 is not positive"),  # at the extent
    ("ComposeLayout(32, 3, 3, S[8])", "<layout>:1:1: error[E0517]: this swizzle reaches bit 38 of the element "
                                      "index, which is a 32-bit int"),
    ("# no layout", "<layout>:1:12: error[E0517]: no layout here"),
])
def test_layout_errors(capsys, text, first_line):
    status, out, err = layout(capsys, text)
    assert status == 1 and out == ""
    assert err.startswith(first_line)
    assert err.endswith("<layout>: 1 error generated\n") and "Traceback" not in err


def test_error_caret_points_into_the_layout_text(capsys):
    _, _, err = layout(capsys, "S[(4, 8):(1, 4@lane)]")
    assert err.splitlines()[1:4] == ["  |", "1 | S[(4, 8):(1, 4@lane)]", "  |                ^^^^"]
    assert "did you mean `laneid`?" in err


# ---- usage errors: exit 2 -----------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (("S[(4, 8):(1, 4)]", "--shape", 4, 9), "shape (4, 9) has 36 elements but the layout covers 32"),
    (("S[(4, 8):(1, 4)]", "--shape", 0, 32), "is not a shape"),
    (("S[(4, 8):(1, 4)]", "--shape", "S[4]"), "is not a shape"),
    (("S[4]", "--dtype", "flaot16"), "unknown dtype 'flaot16'; did you mean `float16`?"),
    (("",), "LAYOUT is empty"),
    (('"default"',), "the layout \"default\" has no shape of its own: give --shape"),
    (("S[1024, 1024]",), "the layout covers 1048576 elements; tirxc layout shows at most 65536"),
    (("S[32:1@laneid]", "--banks"), "--banks is for shared-memory layouts"),
    (("S[4]", "--colour"), "No such option '--colour'"),
])
def test_usage_errors(capsys, args, message):
    status, out, err = layout(capsys, *args)
    assert status == 2 and out == ""
    assert message in err and err.startswith("Usage: tirxc layout")


def test_unwritable_svg_is_a_usage_error(capsys, tmp_path):
    status, _, err = layout(capsys, "S[4]", "--svg", tmp_path / "missing" / "x.svg")
    assert status == 2 and "cannot write" in err


# ---- the picture ------------------------------------------------------------------------------------

def svg_cells(path) -> list[tuple[str, str]]:
    """(tooltip, fill) of every element cell of a picture; the cells are the rects with a title."""
    root = ET.parse(path).getroot()
    assert root.tag == SVG_NS + "svg"
    return [(r.find(SVG_NS + "title").text, r.get("fill")) for r in root.iter(SVG_NS + "rect")
            if r.find(SVG_NS + "title") is not None]


def test_svg_has_one_cell_per_element(capsys, tmp_path):
    path = tmp_path / "col.svg"
    status, out, _ = layout(capsys, "S[(4, 8):(1, 4)]", "--svg", path)
    assert status == 0 and out.startswith("S[(4, 8):(1, 4)] over shape (4, 8)")
    found = svg_cells(path)
    assert len(found) == 32
    assert found[1][0] == "[0, 1] m 4" and found[8][0] == "[1, 0] m 1"
    texts = [t.text for t in ET.parse(path).getroot().iter(SVG_NS + "text")]
    assert "28" in texts and "S[(4, 8):(1, 4)] over shape (4, 8)" in texts


def test_svg_colours_threads_by_owner(capsys, tmp_path):
    path = tmp_path / "lanes.svg"
    assert layout(capsys, "TileLayout(S[(32, 8) : (1 @ laneid, 1)])", "--svg", path)[0] == 0
    found = svg_cells(path)
    assert len(found) == 256
    fills = [fill for _, fill in found]
    assert all(fills[8 * i + j] == fills[8 * i] for i in range(32) for j in range(8))  # one lane, one colour
    assert len({fills[8 * i] for i in range(32)}) == 32
    assert found[8 * 5 + 3][0] == "[5, 3] laneid 5, m 3"


def test_svg_colours_memory_by_bank(capsys, tmp_path):
    swizzled, plain = tmp_path / "sw.svg", tmp_path / "plain.svg"
    assert layout(capsys, "ComposeLayout(3, 3, 3, S[8, 64])", "--svg", swizzled)[0] == 0
    assert layout(capsys, "S[8, 64]", "--dtype", "float16", "--svg", plain)[0] == 0
    column = [64 * i for i in range(8)]
    sw, pl = svg_cells(swizzled), svg_cells(plain)
    assert len(sw) == len(pl) == 512
    assert len({sw[k][1] for k in column}) == 8  # the swizzle spreads column 0 over eight banks
    assert len({pl[k][1] for k in column}) == 1  # without it the column is one bank
    assert sw[64][0] == "[1, 0] m 72"


def test_svg_of_rank_three_and_replicas(capsys, tmp_path):
    path = tmp_path / "frag.svg"
    assert layout(capsys, DOCS_FRAGMENT, "--shape", 8, 16, "--svg", path)[0] == 0
    found = svg_cells(path)
    assert len(found) == 128 and found[15 + 7 * 16][0] == "[7, 15] laneid 31, warpid 6,10, m 1"
    path3 = tmp_path / "three.svg"
    assert layout(capsys, "S[(2, 3, 4):(1, 8, 2)]", "--svg", path3)[0] == 0
    assert len(svg_cells(path3)) == 24


# ---- determinism, and the real command line ---------------------------------------------------------

def test_output_is_deterministic(tmp_path):
    outputs = []
    for seed in ("0", "1"):
        svg = tmp_path / f"{seed}.svg"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-m", "transpiler", "layout", DOCS_FRAGMENT, "--shape", "8", "16",
                               "--svg", str(svg)], capture_output=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        outputs.append((proc.stdout, svg.read_bytes()))
    assert outputs[0] == outputs[1]


def test_command_line_error_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "transpiler", "layout", "S[(4, 8):(1, 4@lane)]"],
                          capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}, timeout=120)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("<layout>:1:16: error[E0300]: unknown name `lane`")
    assert "Traceback" not in proc.stderr
