"""`menagerie match`: real engine processes in every variant, broken engines
losing with the right reason, SPRT stopping early, openings with both colours,
XBoard engines, and a chess match against Stockfish whose PGN python-chess
reads back."""
import io
import json
import pathlib
import shutil
import subprocess
import sys

import chess
import chess.pgn
import pytest

from conftest import ROOT, binary

BROKEN = ROOT / "tests" / "python" / "engines" / "broken_uci.py"
VARIANTS = ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino", "chess960"]
STOCKFISH = shutil.which("stockfish") or ("/usr/games/stockfish" if pathlib.Path("/usr/games/stockfish").exists() else None)


def uci_engine(name: str, *extra: str) -> str:
    return " ".join([f"cmd={binary('menagerie-uci')}", f"name={name}", "option.Hash=8", *extra])


def broken(mode: str) -> str:
    return f"cmd={sys.executable} arg={BROKEN} arg={mode} name=Broken-{mode}"


def run_match(tmp_path: pathlib.Path, *args: str, timeout: int = 300) -> tuple[dict, list, str]:
    """Runs `menagerie match ... --json --pgn-out`; returns the JSON, the games
    (python-chess games for chess, python-chess headers for the fairy
    variants, which python-chess cannot play) and the PGN text."""
    pgn = tmp_path / "games.pgn"
    cmd = [str(binary("menagerie")), "match", *args, "--json", "--quiet", "--pgn-out", str(pgn)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    text = pgn.read_text()
    games = []
    stream = io.StringIO(text)
    read = chess.pgn.read_game if summary["variant"] == "chess" else chess.pgn.read_headers
    while (g := read(stream)) is not None:
        games.append(g)
    return summary, games, text


@pytest.mark.parametrize("variant", VARIANTS)
def test_two_menagerie_engines_play_every_variant(tmp_path, variant):
    summary, games, text = run_match(
        tmp_path,
        "--engine", uci_engine("A"), "--engine", uci_engine("B"),
        "--variant", variant, "--nodes", "3000", "--games", "2", "--concurrency", "2", "--max-moves", "80",
    )
    assert summary["finished"] == 2 and summary["scheduled"] == 2
    a, b = summary["engines"]
    assert a["games"] == b["games"] == 2
    assert a["wins"] == b["losses"] and a["draws"] == b["draws"]
    # Every game ended by the rules or the length limit, never by an engine failure.
    assert set(summary["terminations"]) <= {"normal", "adjudication"}, summary
    assert len(games) == 2
    for g in games:
        headers = g.headers if variant == "chess" else g
        assert headers["Result"] in ("1-0", "0-1", "1/2-1/2")
        assert headers["TimeControl"] == "-"
        if variant != "chess":
            assert headers["Variant"] == variant
    # Menagerie reads its own output back: every move legal, results consistent.
    pgn = tmp_path / "games.pgn"
    check = subprocess.run([str(binary("menagerie")), "pgn", "--check", str(pgn)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    assert "2 games" in check.stdout
    assert {(g.headers if variant == "chess" else g)["White"] for g in games} == {"A", "B"}


@pytest.mark.parametrize(
    "mode, termination, detail",
    [
        ("illegal", "rules infraction", "illegal move: a3a6"),
        ("garbage", "rules infraction", "illegal move: xyzzy"),
        ("nomove", "rules infraction", "no move"),
        ("crash", "abandoned", "disconnected"),
        ("silent", "time forfeit", "loses on time"),
        ("slow", "time forfeit", "loses on time"),
    ],
)
def test_a_broken_engine_loses_with_the_reason(tmp_path, mode, termination, detail):
    # Only the broken engine plays on the 1 s clock (its `slow` move takes
    # 1.5 s, `silent` never comes); Menagerie plays at fixed nodes, so a
    # loaded machine cannot flag it.
    summary, games, _ = run_match(
        tmp_path,
        "--engine", uci_engine("Menagerie", "nodes=2000"), "--engine", broken(mode),
        "--tc", "1+0", "--games", "2", "--time-margin", "50",
    )
    good, bad = summary["engines"]
    assert (good["wins"], bad["losses"]) == (2, 2), summary
    assert summary["terminations"] == {termination: 2}
    for g in games:
        loser = "White" if g.headers["White"].startswith("Broken") else "Black"
        assert g.headers["Result"] == ("0-1" if loser == "White" else "1-0")
        assert g.headers["Termination"] == termination
        assert detail in g.headers["TerminationDetails"], g.headers["TerminationDetails"]
        assert g.headers["TerminationDetails"].startswith(loser), g.headers["TerminationDetails"]


@pytest.mark.parametrize(
    "opponent, detail",
    [
        (lambda: "cmd=/nonexistent/engine name=Ghost", "could not start"),
        (lambda: uci_engine("Typo", "option.UCI_Elow=1400"), "no UCI option 'UCI_Elow'"),
    ],
    ids=["does-not-start", "misspelt-uci-option"],
)
def test_an_engine_that_cannot_play_loses_every_game(tmp_path, opponent, detail):
    # A misspelt UCI option is an error, not a silent no-op. (`opponent`
    # gives the engine spec once the test runs: the binary must exist then.)
    summary, games, _ = run_match(
        tmp_path,
        "--engine", uci_engine("Menagerie"), "--engine", opponent(),
        "--movetime", "0.05", "--games", "2",
    )
    assert summary["engines"][0]["wins"] == 2
    assert all(detail in g.headers["TerminationDetails"] for g in games), [g.headers for g in games]


def test_sprt_stops_the_match_early(tmp_path):
    summary, games, _ = run_match(
        tmp_path,
        "--engine", uci_engine("Menagerie"), "--engine", broken("illegal"),
        "--movetime", "0.02", "--games", "100", "--sprt", "elo0=0,elo1=400,alpha=0.05,beta=0.05",
    )
    sprt = summary["sprt"]
    assert sprt["state"] == "H1" and sprt["llr"] >= sprt["upper"] > 2.94
    assert abs(sprt["upper"] - 2.944439) < 1e-5 and abs(sprt["lower"] + 2.944439) < 1e-5
    # Five straight wins decide it (LLR 5 ln(0.9091 / 0.5) = 2.99 > 2.94, four
    # give 2.39); a sixth may have started meanwhile.
    assert 5 <= summary["finished"] < 10
    assert len(games) == summary["finished"]


def test_openings_are_played_with_both_colours(tmp_path):
    epd = tmp_path / "openings.epd"
    epd.write_text(
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - ;id \"open\"\n"
        "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2\n"
    )
    summary, games, _ = run_match(
        tmp_path, "--engine", uci_engine("A"), "--engine", uci_engine("B"),
        "--openings", str(epd), "--nodes", "2000", "--games", "4", "--max-moves", "30",
    )
    assert summary["finished"] == 4
    fens = [g.headers.get("FEN") for g in games]
    assert fens[0] == fens[1] and fens[2] == fens[3] and fens[0] != fens[2]
    assert all(g.headers["SetUp"] == "1" for g in games)
    assert games[0].headers["White"] == games[1].headers["Black"]
    # PGN openings: the book moves come first, marked as book.
    book = tmp_path / "book.pgn"
    book.write_text('[Event "book"]\n\n1. e4 c5 2. Nf3 d6 *\n\n[Event "book 2"]\n\n1. d4 d5 *\n')
    summary, games, text = run_match(
        tmp_path, "--engine", uci_engine("A"), "--engine", uci_engine("B"),
        "--openings", str(book), "--plies", "3", "--nodes", "2000", "--games", "4", "--max-moves", "30",
    )
    first = [[m.uci() for m in g.mainline_moves()][:3] for g in games]
    assert first[0] == first[1] == ["e2e4", "c7c5", "g1f3"]
    assert first[2][:2] == first[3][:2] == ["d2d4", "d7d5"]
    assert "{book}" in text


@pytest.mark.parametrize("variant", ["camel-rhino", "alpaca2", "alseid"])
def test_xboard_engines_play_through_the_runner(tmp_path, variant):
    summary, games, _ = run_match(
        tmp_path,
        "--engine", uci_engine("X", "proto=xboard"), "--engine", uci_engine("U"),
        "--variant", variant, "--depth", "3", "--games", "2", "--max-moves", "60",
    )
    assert summary["finished"] == 2
    assert set(summary["terminations"]) <= {"normal", "adjudication"}, summary


def test_bad_match_options_are_clear_errors(tmp_path):
    base = [str(binary("menagerie")), "match", "--engine", uci_engine("A"), "--engine", uci_engine("B")]
    for extra, needle in [
        (["--tc", "0"], "not a time control"),
        (["--tc", "10+x"], "not a time control"),
        (["--nodes", "0"], "positive"),
        (["--movetime", "0.1", "--variant", "tamerlane"], "unknown variant"),
        (["--movetime", "0.1", "--sprt", "elo0=5,elo1=0"], "elo0 < elo1"),
        (["--movetime", "0.1", "--resign", "movecount=x"], "not a number"),
        (["--movetime", "0.1", "--openings", "/nonexistent.epd"], "nonexistent"),
        ([], "time control"),
    ]:
        proc = subprocess.run(base + extra, capture_output=True, text=True, timeout=30)
        assert proc.returncode != 0 and needle in proc.stderr, (extra, proc.stderr)
    proc = subprocess.run(
        [str(binary("menagerie")), "match", "--engine", "name=x", "--engine", uci_engine("B"), "--depth", "1"],
        capture_output=True, text=True, timeout=30,
    )
    assert proc.returncode != 0 and "cmd=PATH" in proc.stderr


@pytest.mark.skipif(STOCKFISH is None, reason="Debian's stockfish is not installed (apt-get install stockfish)")
def test_chess_match_against_stockfish_reads_back_in_python_chess(tmp_path):
    # Fixed nodes, not a clock: a loaded machine must not decide the games
    # by time forfeits (it did, at 2+0.05 on a busy 2-core box).
    summary, games, _ = run_match(
        tmp_path,
        "--engine", uci_engine("Menagerie"), "--engine", f"cmd={STOCKFISH} name=Stockfish option.Hash=16 option.Threads=1",
        "--nodes", "5000", "--games", "2", "--concurrency", "2", "--resign", "movecount=3,score=1000",
        "--max-moves", "150",
    )
    assert summary["finished"] == 2
    assert {summary["engines"][1]["name"]} == {"Stockfish"}
    assert set(summary["terminations"]) <= {"normal", "adjudication"}, summary
    for g in games:
        assert g.headers["TimeControl"] == "-"
        board = g.board()
        for move in g.mainline_moves():
            assert move in board.legal_moves
            board.push(move)
        result = g.headers["Result"]
        assert result in ("1-0", "0-1", "1/2-1/2")
        if g.headers["Termination"] == "normal" and result != "1/2-1/2":
            assert board.is_checkmate()
        # Every engine move carries the engine's score/depth and time.
        assert all(node.comment for node in g.mainline())
        assert all(node.emt() is not None for node in g.mainline())


FAIRY = shutil.which("fairy-stockfish") or (
    "/usr/games/fairy-stockfish" if pathlib.Path("/usr/games/fairy-stockfish").exists() else None
)
EXAMPLE_INI = ROOT / "tests" / "variants" / "example.ini"


@pytest.mark.parametrize("variant", ["capablanca", "makruk", "shatranj", "seirawan"])
def test_menagerie_plays_data_variants_through_the_runner(tmp_path, variant):
    """Variants defined as data: Menagerie's engine against itself, every
    move refereed by the rules crate, PGN with SAN and the variant tag."""
    summary, headers, text = run_match(
        tmp_path,
        "--engine", uci_engine("A"), "--engine", uci_engine("B"),
        "--variant", variant, "--nodes", "3000", "--games", "2", "--concurrency", "2", "--max-moves", "80",
    )
    assert summary["finished"] == 2 and set(summary["terminations"]) <= {"normal", "adjudication"}, summary
    assert [h["Variant"] for h in headers] == [variant, variant]


def test_a_users_variant_is_played_with_the_file_given_to_both(tmp_path):
    """A variant of a user's file: the runner (--variants) and the engines
    (--variants on their command line) read the same file."""
    engine = lambda name: uci_engine(name, f"arg=--variants arg={EXAMPLE_INI}")
    summary, headers, _ = run_match(
        tmp_path,
        "--engine", engine("A"), "--engine", engine("B"),
        "--variant", "cannons", "--nodes", "2000", "--games", "2", "--max-moves", "60",
        "--variants", str(EXAMPLE_INI),
    )
    assert summary["finished"] == 2 and set(summary["terminations"]) <= {"normal", "adjudication"}, summary
    assert {h["Variant"] for h in headers} == {"cannons"}


@pytest.mark.skipif(FAIRY is None, reason="apt-get install fairy-stockfish")
def test_menagerie_against_fairy_stockfish_in_capablanca(tmp_path):
    """Menagerie's engine against Fairy-Stockfish (Debian's) in a game both
    know: every move refereed, the games finish by the rules."""
    summary, headers, text = run_match(
        tmp_path,
        "--engine", uci_engine("Menagerie"), "--engine", f"cmd={FAIRY} name=Fairy-Stockfish option.Hash=8",
        "--variant", "capablanca", "--nodes", "5000", "--games", "2", "--max-moves", "100",
    )
    assert summary["finished"] == 2 and set(summary["terminations"]) <= {"normal", "adjudication"}, summary
    assert "Fairy-Stockfish" in text and all(h["Variant"] == "capablanca" for h in headers)


def test_a_gauntlet_over_rounds_survives_a_crashing_engine(tmp_path):
    """cutechess-style controls: a gauntlet (the first engine against each
    other), two rounds of two games with each opening played with both
    colours, an engine that crashes in every game (it loses each, the match
    goes on with a new process), Menagerie's `Move Overhead` option, and
    `[%clk]`/`[%emt]` in the PGN. Only the instant-moving engine plays on a
    (generous) clock; Menagerie plays at fixed nodes."""
    summary, games, text = run_match(
        tmp_path,
        "--tournament", "gauntlet", "--rounds", "2", "--games", "2", "--repeat", "2",
        "--engine", uci_engine("Menagerie", "nodes=1000", '"option.Move Overhead=50"'),
        "--engine", broken("ok"), "--engine", broken("crash"),
        "--tc", "600+1", "--max-moves", "30",
    )
    assert summary["scheduled"] == summary["finished"] == 8, summary
    menagerie, ok, crash = summary["engines"]
    assert (menagerie["games"], ok["games"], crash["games"]) == (8, 4, 4)
    assert (crash["losses"], summary["terminations"].get("abandoned")) == (4, 4), summary
    pairs = [(g.headers["White"], g.headers["Black"]) for g in games]
    assert ("Broken-ok", "Broken-crash") not in pairs and ("Broken-crash", "Broken-ok") not in pairs
    against_ok = [g for g in games if "Broken-ok" in (g.headers["White"], g.headers["Black"])]
    assert len(against_ok) == 4
    for g in against_ok:
        clocked = "White" if g.headers["White"] == "Broken-ok" else "Black"
        nodes = list(g.mainline())
        assert nodes and all(n.emt() is not None for n in nodes), g
        for n in nodes:
            mover = "White" if n.turn() == chess.BLACK else "Black"
            clock = n.clock()
            if mover == clocked:
                # 600 s plus 1 s a move, less instant moves.
                assert clock is not None and 500 < clock <= 600 + len(nodes), (clock, g)
            else:
                assert clock is None, g
    assert "[%clk 0:" in text and "[%emt 0:" in text


def test_openings_in_a_random_order_are_repeatable_with_a_seed(tmp_path):
    epd = tmp_path / "openings.epd"
    fens = [
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -",
        "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq -",
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -",
        "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq -",
        "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq -",
    ]
    epd.write_text("\n".join(fens) + "\n")

    def order(seed: str) -> list[str]:
        summary, games, _ = run_match(
            tmp_path, "--engine", broken("ok"), "--engine", broken("ok"), "--openings", str(epd),
            "--openings-order", "random", "--seed", seed, "--games", "10", "--tc", "600+1", "--max-moves", "4",
        )
        assert summary["seed"] == int(seed)
        played = [" ".join(g.headers["FEN"].split()[:4]) for g in sorted(games, key=lambda g: int(g.headers["Round"]))]
        # Each opening twice in a row, once with each colour.
        assert all(played[i] == played[i + 1] for i in range(0, 10, 2)), played
        assert sorted(played[::2]) == sorted(fens)
        return played

    first = order("42")
    assert order("42") == first
    assert first[::2] != fens


def test_the_table_bounds_a_perfect_score_instead_of_inf_plus_minus_inf(tmp_path):
    cmd = [str(binary("menagerie")), "match", "--engine", uci_engine("Menagerie", "nodes=500"),
           "--engine", broken("illegal"), "--tc", "600+1", "--games", "2", "--quiet"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "inf ± inf" not in proc.stdout, proc.stdout
    # Two wins in two games: Elo at least elo(0.025^(1/2)) = -290.5.
    assert "+inf (> -290.5)" in proc.stdout and "-inf (< +290.5)" in proc.stdout, proc.stdout
