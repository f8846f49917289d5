"""TIRx's older spellings, read and migrated: a file written for the pre-upstream fork's wheel, for
apache/tvm's May 2026 bring-up or for its June-July spelling is rewritten, right after parsing, into
today's spelling, so that the checker sees one language (docs/design.md, decision 34;
docs/older-spellings.md lists every form).

The rewrite is a list of text edits on the file's own text (spellings.py says what each older form
becomes, scan.py finds them in the syntax tree, edits.py applies them and maps positions back), so
`tirxc migrate` writes exactly what the compiler reads. This module is imported for every file: it
only holds the quick test that keeps a current file from paying for the rest."""
from __future__ import annotations

import re

# Text that only an older spelling has (or that today's spelling shares with one, to be told apart
# by scan.py): a file without any of it is read as today's spelling without parsing it twice.
_OLDER_MARKERS = re.compile(
    r"tirx\s*=\s*True|parent\s*=|\.kernel\s*\(\s*\)|PoolAllocator|tvm\.tir\.layout"
    r"|tvm\.tirx\.(?:pipeline|tile_scheduler|warp_role|op_schedule|operator)"
    r"|with\s+\w+\.(?:cta|warp|warpgroup|thread|cluster)\s*\(|\.filter\s*\("
    r"|\.ptx\.(?:mbarrier\.(?:init|try_wait|arrive|arrive\.expect_tx)|fence\.(?:proxy_async|mbarrier_init)"
    r"|tcgen05\.(?:commit|fence\.\w+|wait\.\w+)|elect_sync|cp_async\.[\w.]+)\s*\(")


def might_be_older(text: str) -> bool:
    """False when the text certainly is today's spelling; True when scan.py has to look."""
    return _OLDER_MARKERS.search(text) is not None
