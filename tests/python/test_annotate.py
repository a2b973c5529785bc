"""`menagerie annotate`: whole-game analysis from the command line, on this
machine and spread over `menagerie-server` replicas (the built binaries).

- a real 70-move game: the annotated PGN on stdout opens in python-chess
  with its evals, NAGs and the engine's lines; --json gives the review;
- every variant's game annotates and its annotated PGN reads back;
- several games over two replicas come back in input order, as locally;
- pictures as SVG files; bad games exit 1 naming the game.
"""
import io
import json

import chess.pgn
import pytest

from conftest import ROOT, menagerie
from test_fanout import start_server

PGN_DIR = ROOT / "tests" / "pgn"
LONG = PGN_DIR / "long-chess.pgn"


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("annotate-servers")
    started = [start_server(log_dir), start_server(log_dir)]
    yield started
    for s in started:
        s.stop()


def test_a_long_game_opens_in_python_chess():
    proc = menagerie("annotate", "--nodes", "2000", "--threads", "2", str(LONG))
    game = chess.pgn.read_game(io.StringIO(proc.stdout))
    original = chess.pgn.read_game(io.StringIO(LONG.read_text()))
    assert not game.errors, game.errors
    assert list(game.mainline_moves()) == list(original.mainline_moves())
    assert len(list(game.mainline_moves())) == 140
    assert sum(node.eval() is not None for node in game.mainline()) >= 139
    assert game.headers["Annotator"].startswith("Menagerie")
    marked = [node for node in game.mainline() if set(node.nags) & {2, 4, 6}]
    assert marked, "weak engines' game: some move is marked ?!, ? or ??"
    # The summary per side goes to stderr.
    assert "game 1 (MenagerieA - MenagerieB): White accuracy" in proc.stderr
    # Comments are never wrapped inside: python-chess keeps a newline in a
    # comment as one, and a reader would show it.
    comments = [node.comment for node in game.mainline() if node.comment]
    assert any("best" in c for c in comments), comments[:5]
    assert not any("\n" in c for c in comments), [c for c in comments if "\n" in c][:3]


def test_json_review_and_pictures(tmp_path):
    svg_dir = tmp_path / "svg"
    proc = menagerie("--json", "annotate", "--depth", "3", "--svg-dir", str(svg_dir), str(LONG))
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [line["type"] for line in lines] == ["game", "annotate"]
    game = lines[0]
    review = game["review"]
    assert game["white"] == "MenagerieA" and game["result"] == "0-1"
    assert len(review["positions"]) == 141 and len(review["moves"]) == 140
    flagged = [m for m in review["moves"] if m["classification"] in ("inaccuracy", "mistake", "blunder")]
    assert flagged and all(m["svg"].startswith("<svg") for m in flagged)
    assert all(m.get("svg") is None for m in review["moves"] if m not in flagged)
    assert len(list(svg_dir.glob("game1-*.svg"))) == len(flagged)
    assert review["summary"]["white"]["moves"] == 70
    assert lines[1] == {"type": "annotate", "games": 1, "annotated": 1, "bad": 0}
    # The JSON's annotated PGN is the text output's.
    text = menagerie("annotate", "--depth", "3", str(LONG)).stdout
    assert text.strip() == game["annotated_pgn"].strip()


def test_every_variant_annotates_and_reads_back(tmp_path):
    out = tmp_path / "annotated.pgn"
    menagerie("annotate", "--nodes", "1500", "--output", str(out), str(PGN_DIR / "variants.pgn"))
    check = menagerie("pgn", "--check", str(out))
    assert check.stdout.strip().startswith("8 games, 0 bad"), check.stdout
    text = out.read_text()
    for variant in ["alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino", "chess960"]:
        assert f'[Variant "{variant}"]' in text
    assert text.count("[%eval") > 20


def test_games_spread_over_replicas_come_back_in_order(servers, tmp_path):
    urls = ",".join(s.url for s in servers)
    files = [str(PGN_DIR / "variants.pgn"), str(PGN_DIR / "orthodox.pgn")]
    remote = menagerie("--remote", urls, "annotate", "--depth", "2", "--jobs-per-replica", "2", *files)
    local = menagerie("annotate", "--depth", "2", "--threads", "1", *files)
    remote_games = remote.stdout.split("[Event ")
    local_games = local.stdout.split("[Event ")
    assert len(remote_games) == len(local_games) == 11  # 10 games
    # Same games, same order, same moves (a depth budget on one thread is deterministic).
    for r, l in zip(remote_games, local_games):
        assert r.splitlines()[:1] == l.splitlines()[:1]
    assert remote.stdout == local.stdout
    summaries = [line for line in remote.stderr.splitlines() if line.startswith("game ")]
    assert [s.split()[1] for s in summaries] == [str(n) for n in range(1, 11)]


def test_bad_games_exit_1_and_are_named(tmp_path):
    proc = menagerie("annotate", "--nodes", "500", str(PGN_DIR / "bad.pgn"), check=False)
    assert proc.returncode == 1
    assert "bad.pgn: game 2 (Carol - Dave)" in proc.stderr
    proc = menagerie("annotate", "--nodes", "500", "--jobs-per-replica", "3", str(LONG), check=False)
    assert proc.returncode == 2 and "--remote" in proc.stderr
    proc = menagerie("annotate", str(tmp_path / "missing.pgn"), check=False)
    assert proc.returncode == 2
