"""Engine-vs-engine games of the gating variants use the reserve pieces.

Issue 45 item 3: the engine used to decline the reserves from every start,
so every alpaca match was orthodox chess. At a fixed node count (no clock:
independent of the machine's speed) both games accept, place, and bring a
reserve piece onto the board by gating (SAN `Nf3(A@g1)`).
"""

import re
import subprocess

import pytest

from conftest import binary


@pytest.mark.parametrize("variant,letter", [("alpaca", "A"), ("alseid", "S")])
def test_selfplay_games_accept_and_gate(tmp_path, variant, letter):
    uci = binary("menagerie-uci")
    pgn = tmp_path / "games.pgn"
    subprocess.run(
        [str(binary("menagerie")), "match", "--variant", variant, "--nodes", "1000", "--games", "2",
         "--max-moves", "40", "--quiet", "--move-timeout", "600", "--pgn-out", str(pgn),
         "--engine", f"cmd={uci} name=a", "--engine", f"cmd={uci} name=b"],
        check=True, capture_output=True, text=True, timeout=1800,
    )
    games = [g for g in pgn.read_text().split("[Event ") if g.strip()]
    assert len(games) == 2
    for g in games:
        assert " accept " in g and "decline" not in g, g
        assert re.search(rf"\({letter}@[a-h][18]\)", g), f"no reserve piece entered by gating: {g}"
