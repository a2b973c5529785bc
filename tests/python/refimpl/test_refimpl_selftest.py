"""Self-tests of the reference implementation.

Perft numbers are the published ones (orthodox) or given in the brief (prelude, plain
camel-rhino).  Every other expected move list below was derived by hand from RULES.md; the
derivation is sketched in the comments.
"""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import rules  # noqa: E402


def pos(variant, fen):
    return rules.parse_fen(variant, fen)


def moves(variant, fen):
    return rules.legal_moves(pos(variant, fen))


def after(variant, fen, *move_list):
    p = pos(variant, fen)
    for m in move_list:
        p = rules.play(p, m)
    return rules.format_fen(p)


def moves_from(variant, fen, square):
    return sorted(m for m in moves(variant, fen) if m.startswith(square)
                  and not m[len(square)].isdigit())


# =============================================================================================
# Perft
# =============================================================================================

def _epd():
    out = []
    path = os.path.join(HERE, "..", "..", "perft", "chess-standard.epd")
    with open(path) as fh:
        for line in fh:
            if not line.strip() or line.startswith("#"):
                continue
            fen, *rest = line.split(";")
            counts = {int(x.split()[0][1:]): int(x.split()[1]) for x in rest}
            out.append((fen.strip(), counts))
    return out


@pytest.mark.parametrize("fen,counts", _epd())
def test_orthodox_perft(fen, counts):
    p = pos("chess", fen)
    assert rules.format_fen(p) == fen
    for depth in (1, 2, 3):
        assert rules.perft(p, depth) == counts[depth]


def test_published_counts_match_brief():
    expected = [(20, 400, 8902), (48, 2039, 97862), (14, 191, 2812), (6, 264, 9467),
                (44, 1486, 62379), (46, 2079, 89890)]
    assert [tuple(c[d] for d in (1, 2, 3)) for _, c in _epd()] == expected


@pytest.mark.parametrize("variant,counts", [
    ("alpaca", [2, 10, 92, 1744]),
    ("alpaca2", [2, 28, 722]),
    ("alpaca-samefile", [2, 10, 36, 568]),
])
def test_prelude_perft(variant, counts):
    p = pos(variant, rules.START_FENS[variant])
    assert [rules.perft(p, d) for d in range(1, len(counts) + 1)] == counts


def test_alseid_prelude_perft_same_as_alpaca():
    # The first moves do not depend on the reserve piece's kind.
    for v in ("alseid", "alseid-weak"):
        assert [rules.perft(pos(v, rules.START_FENS[v]), d) for d in (1, 2, 3)] == [2, 10, 92]


def test_camel_rhino_plain_start_perft():
    p = pos("camel-rhino-plain", rules.START_FENS["camel-rhino-plain"])
    assert rules.perft(p, 1) == 76
    assert rules.perft(p, 2) == 5770


def test_gating_variants_without_reserve_are_chess():
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    for v in ("alpaca", "alseid"):
        p = pos(v, fen)
        assert rules.format_fen(p) == fen.replace(" w", "[] w", 1)
        assert rules.perft(p, 2) == 2039


# =============================================================================================
# §0 FEN and conventions
# =============================================================================================

@pytest.mark.parametrize("variant,fen", [
    ("chess", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"),
    ("alpaca", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] w KQkq - 0 1"),
    ("alpaca", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] b KQkq - 0 1"),
    ("alpaca", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa] w KQkq - 0 1"),
    ("alpaca", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[A@ga] b KQkq - 0 1"),
    ("alpaca", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[A@ga@f] w KQkq - 0 1"),
    ("alpaca2", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[A@bA@gaa] b KQkq - 0 1"),
    ("alpaca", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"),
    ("alseid", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Ss?] w KQkq - 0 1"),
    ("camel-rhino", "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1"),
])
def test_fen_round_trip(variant, fen):
    assert rules.format_fen(pos(variant, fen)) == fen


def test_fen_without_bracket_in_gating_variant_means_no_reserve():
    p = pos("alpaca", "4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    assert rules.format_fen(p) == "4k3/8/8/8/8/8/8/4K3[] w - - 0 1"


@pytest.mark.parametrize("variant,fen", [
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"),   # bracket in chess
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"),        # five fields
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1"),     # short rank
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"),    # bad side
    ("chess", "4k3/8/8/8/8/8/8/3AK3 w - - 0 1"),                             # Alpaca in chess
    ("alpaca", "4k3/8/8/8/8/8/8/3SK3[] w - - 0 1"),                          # Alseid in alpaca
    ("chess", "4k3/8/8/8/8/8/8/8 w - - 0 1"),                                 # no white king
    ("chess", "4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1"),                             # side not to move in check
    ("alpaca", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKB1R[A@ga] b KQkq - 0 1"),   # gate g, g1 empty
    ("alseid", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBSR[S@g] w KQkq - 0 1"),    # Alseid on live home
    ("alpaca", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Sa?] w KQkq - 0 1"),    # wrong letter
    ("camel-rhino", "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w KQ - 0 1"),
    ("camel-rhino", "r7r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1"),
])
def test_invalid_fens_rejected(variant, fen):
    with pytest.raises(ValueError):
        pos(variant, fen)


def test_en_passant_square_after_every_double_step_and_clocks():
    start = rules.START_FENS["chess"]
    assert after("chess", start, "e2e4") == \
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert after("chess", start, "e2e4", "g8f6") == \
        "rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"
    assert after("chess", start, "a2a3") == \
        "rnbqkbnr/pppppppp/8/8/8/P7/1PPPPPPP/RNBQKBNR b KQkq - 0 1"
    # 10x10: double steps from rank 3 to 5 (White), 8 to 6 (Black).
    cr = rules.START_FENS["camel-rhino"]
    assert after("camel-rhino", cr, "a3a5") == \
        "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/P9/4WW4/1PPP2PPPP/1HZBQKBNC1/R8R b - a4 0 1"
    assert after("camel-rhino", cr, "a3a5", "j8j6") == \
        "r8r/1hzbqkbnc1/pppp2ppp1/4ww4/9p/P9/4WW4/1PPP2PPPP/1HZBQKBNC1/R8R w - j7 0 2"


def test_castling_orthodox():
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    # King: d1 d2 e2 f2 f1 + two castlings; Ra1: a2..a8, b1 c1 d1; Rh1: h2..h8, g1 f1.
    expected = ["e1d1", "e1d2", "e1e2", "e1f2", "e1f1", "e1g1", "e1c1"]
    expected += ["a1a%d" % r for r in range(2, 9)] + ["a1b1", "a1c1", "a1d1"]
    expected += ["h1h%d" % r for r in range(2, 9)] + ["h1g1", "h1f1"]
    assert moves("chess", fen) == sorted(expected)
    assert after("chess", fen, "e1g1") == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    assert after("chess", fen, "e1c1") == "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1"


# =============================================================================================
# §2.1 The Alpaca
# =============================================================================================

def test_alpaca_moves():
    # Alpaca d4: steps d5(x), d3, c4(x) (e4 own pawn); leaps d6, b4, f4 (over anything);
    # d2 holds a black knight: no capture on the second square.
    # King e1: d1 d2(x) e2 f2 (f1 attacked by Nd2).  Pawn e4: e5, exd5.
    fen = "4k3/8/8/3p4/2pAP3/8/3n4/4K3[] w - - 0 1"
    assert moves("alpaca", fen) == sorted([
        "d4d5", "d4d3", "d4c4", "d4d6", "d4b4", "d4f4",
        "e1d1", "e1d2", "e1e2", "e1f2", "e4e5", "e4d5"])


def test_alpaca_attacks_only_adjacent_squares():
    # Ae6 attacks e5 e7 d6 f6; its leap onto e8 is not an attack, so no check.
    fen = "4k3/8/4A3/8/8/8/8/4K3[] b - - 0 1"
    assert moves("alpaca", fen) == ["e8d7", "e8d8", "e8f7", "e8f8"]


def test_alpaca_promotions_orthodox_only():
    fen = "4k3/P7/8/8/8/8/8/4K3[] w - - 0 1"
    assert moves("alpaca", fen) == sorted(
        ["a7a8q", "a7a8r", "a7a8b", "a7a8n", "e1d1", "e1d2", "e1e2", "e1f2", "e1f1"])


# =============================================================================================
# §2.2 The prelude and §2.4 FEN steps
# =============================================================================================

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


def test_prelude_steps():
    s = rules.START_FENS["alpaca"]
    assert moves("alpaca", s) == ["accept", "decline"]
    assert after("alpaca", s, "decline") == START + "[Aa?] b KQkq - 0 1"
    assert moves("alpaca", START + "[Aa?] b KQkq - 0 1") == ["accept", "decline"]
    assert after("alpaca", s, "decline", "decline") == START + "[] w KQkq - 0 1"
    assert after("alpaca", s, "decline", "accept") == START + "[Aa] w KQkq - 0 1"
    assert after("alpaca", s, "accept") == START + "[Aa] w KQkq - 0 1"
    placed = START + "[Aa] w KQkq - 0 1"
    assert moves("alpaca", placed) == ["A@" + f for f in "abcdefgh"]
    assert after("alpaca", placed, "A@g") == START + "[A@ga] b KQkq - 0 1"
    assert moves("alpaca", START + "[A@ga] b KQkq - 0 1") == ["A@" + f for f in "abcdefgh"]
    assert after("alpaca", placed, "A@g", "A@f") == START + "[A@ga@f] w KQkq - 0 1"
    # Counters unchanged by prelude actions.
    assert after("alpaca", START + "[Aa?] w KQkq - 3 7", "decline", "decline") == \
        START + "[] w KQkq - 3 7"


def test_prelude_alseid_letter():
    s = rules.START_FENS["alseid"]
    assert after("alseid", s, "accept", "S@b", "S@g") == START + "[S@bs@g] w KQkq - 0 1"


def test_samefile_black_must_follow():
    assert moves("alpaca-samefile", START + "[A@ga] b KQkq - 0 1") == ["A@g"]
    assert moves("alpaca-samefile", START + "[Aa] w KQkq - 0 1") == ["A@" + f for f in "abcdefgh"]


def test_alpaca2_placement():
    fen = START + "[AAaa] w KQkq - 0 1"
    expected = []
    for i, f1 in enumerate("abcdefgh"):
        for f2 in "abcdefgh"[i + 1:]:
            if f1 + f2 not in ("ae", "eh"):
                expected.append("A@" + f1 + f2)
    assert len(expected) == 26
    assert moves("alpaca2", fen) == sorted(expected)
    assert after("alpaca2", fen, "A@bg") == START + "[A@bA@gaa] b KQkq - 0 1"
    assert after("alpaca2", fen, "A@bg", "A@ah") == START + "[A@bA@ga@aa@h] w KQkq - 0 1"


# =============================================================================================
# §2.3 Gating
# =============================================================================================

def test_gate_fires_on_ordinary_move():
    fen = START + "[A@ga@f] w KQkq - 0 1"
    assert after("alpaca", fen, "g1f3") == \
        "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBAR[a@f] b KQkq - 1 1"
    # Black's f-gate fires when the bishop leaves f8.
    assert after("alpaca", fen, "g1f3", "e7e6", "b1c3", "f8c5") == \
        "rnbqkanr/pppp1ppp/4p3/2b5/8/2N2N2/PPPPPPPP/R1BQKBAR[] w KQkq - 2 3"


def test_gate_fires_on_castling_king_and_rook():
    base = "r3k2r/8/8/8/8/8/8/R3K2R"
    assert after("alpaca", base + "[A@e] w KQkq - 0 1", "e1g1") == \
        base[:-5] + "R3ARK1[] b kq - 1 1"
    assert after("alpaca", base + "[A@h] w KQkq - 0 1", "e1g1") == \
        base[:-5] + "R4RKA[] b kq - 1 1"
    assert after("alpaca", base + "[A@a] w KQkq - 0 1", "e1c1") == \
        base[:-5] + "A1KR3R[] b kq - 1 1"


def test_gate_fires_on_capture_made_and_forfeits_on_capture_suffered():
    fen = "4k2r/8/8/8/8/8/8/4K2R[A@h] w Kk - 0 1"
    # White's rook leaves h1 by a capture it makes: the Alpaca enters h1.
    assert after("alpaca", fen, "h1h8") == "4k2R/8/8/8/8/8/8/4K2A[] b - - 0 1"
    # Black captures the home piece on h1: the gate is forfeited.
    fen_b = "4k2r/8/8/8/8/8/8/4K2R[A@h] b Kk - 0 1"
    assert after("alpaca", fen_b, "h8h1") == "4k3/8/8/8/8/8/8/4K2r[] w - - 0 2"


def test_entered_piece_blocks_check():
    # Qd1 is pinned by ra1 in chess, but with a live d-gate the Alpaca enters d1 and blocks.
    board = "4k3/8/8/8/8/8/8/r2QK3"
    queen = ["d1c1", "d1b1", "d1a1"] + ["d1d%d" % r for r in range(2, 9)] + \
        ["d1c2", "d1b3", "d1a4", "d1e2", "d1f3", "d1g4", "d1h5"]
    king = ["e1d2", "e1e2", "e1f2", "e1f1"]
    assert moves("alpaca", board + "[A@d] w - - 0 1") == sorted(queen + king)
    assert moves("alpaca", board + "[] w - - 0 1") == sorted(["d1c1", "d1b1", "d1a1"] + king)
    assert moves("chess", board + " w - - 0 1") == sorted(["d1c1", "d1b1", "d1a1"] + king)
    assert after("alpaca", board + "[A@d] w - - 0 1", "d1d5") == \
        "4k3/8/8/3Q4/8/8/8/r2AK3[] b - - 1 1"


def test_entered_piece_blocks_castling():
    fen = "4k3/8/8/8/8/8/8/4KB1R[A@f] w K - 0 1"
    p = rules.play(pos("alpaca", fen), "f1c4")
    assert rules.format_fen(p) == "4k3/8/8/8/2B5/8/8/4KA1R[] b K - 1 1"
    p = rules.play(p, "e8d8")
    assert "e1g1" not in rules.legal_moves(p)


# =============================================================================================
# §3 Alseid
# =============================================================================================

ALSEID_FEN = "7k/8/8/8/3S4/3P4/8/K2n4[] w - - 0 1"
# Sd4: up d5-d8 (victim: screen Pd3, then nd1), right e4-h4, left c4-a4, up-right e5-g7,
# up-left c5-a7, down-right e3-g1, down-left c3-b2; only the upward moves have a victim.
# Ka1: a2, b1 (b2 attacked by nd1).
ALSEID_MOVES = sorted(
    ["d4d5", "d4d6", "d4d7", "d4d8", "d4e4", "d4f4", "d4g4", "d4h4", "d4c4", "d4b4", "d4a4",
     "d4e5", "d4f6", "d4g7", "d4c5", "d4b6", "d4a7", "d4e3", "d4f2", "d4g1", "d4c3", "d4b2",
     "a1a2", "a1b1"])


def test_alseid_moves_and_compulsory_kidnap():
    assert moves("alseid", ALSEID_FEN) == ALSEID_MOVES
    assert after("alseid", ALSEID_FEN, "d4d8") == "3S3k/8/8/8/3n4/3P4/8/K7[] b - - 1 1"
    assert after("alseid", ALSEID_FEN, "d4d5") == "7k/8/8/3S4/3n4/3P4/8/K7[] b - - 1 1"
    assert after("alseid", ALSEID_FEN, "d4e4") == "7k/8/8/8/4S3/3P4/8/K2n4[] b - - 1 1"


def test_alseid_weak_kidnaps_only_on_one_square_moves():
    assert moves("alseid-weak", ALSEID_FEN) == ALSEID_MOVES
    assert after("alseid-weak", ALSEID_FEN, "d4d5") == "7k/8/8/3S4/3n4/3P4/8/K7[] b - - 1 1"
    assert after("alseid-weak", ALSEID_FEN, "d4d6") == "7k/8/3S4/8/8/3P4/8/K2n4[] b - - 1 1"


def test_kidnapped_king_next_to_own_king_is_illegal():
    # Se4 moving down kidnaps ke8 (screen Pe5) to e4, next to Kd3: illegal.
    fen = "4k3/8/8/4P3/4S3/3K4/8/8[] w - - 0 1"
    expected = ["e4f4", "e4g4", "e4h4", "e4d4", "e4c4", "e4b4", "e4a4",
                "e4f5", "e4g6", "e4h7", "e4d5", "e4c6", "e4b7", "e4a8", "e4f3", "e4g2", "e4h1",
                "d3c2", "d3c3", "d3c4", "d3d2", "d3d4", "d3e2", "d3e3", "e5e6"]
    assert moves("alseid", fen) == sorted(expected)


def test_kidnapped_king_onto_attacked_square_gives_check():
    fen = "4k3/8/8/4P3/4S2R/8/8/K7[] w - - 0 1"
    p = rules.play(pos("alseid", fen), "e4e1")
    assert rules.format_fen(p) == "8/8/8/4P3/4k2R/8/8/K3S3[] b - - 1 1"
    assert rules.in_check(p, p.board, "b")


def test_kidnap_fires_gate_and_removes_castling_right():
    # Black's live b-gate: the kidnapped knight leaves b8, the reserve Alseid enters.
    fen = "1n2k3/1p6/1S6/8/8/8/8/4K3[s@b] w - - 0 1"
    assert after("alseid", fen, "b6b5") == "1s2k3/1p6/1n6/1S6/8/8/8/4K3[] b - - 1 1"
    # A kidnapped rook loses its castling right.
    fen = "4k3/8/8/8/8/7S/7P/4K2R[] w K - 0 1"
    assert "e1g1" in moves("alseid", fen)
    assert after("alseid", fen, "h3h4") == "4k3/8/8/8/7S/7R/7P/4K3[] b - - 1 1"


def test_kidnapped_pawn_on_second_rank_can_double_step():
    # Sd2-c1: looking up-right from d2, screen Pe3, victim Pf4 -> d2.  Clock resets.
    fen = "4k3/8/8/8/5P2/4P3/3S4/4K3[] w - - 5 1"
    p = rules.play(pos("alseid", fen), "d2c1")
    assert rules.format_fen(p) == "4k3/8/8/8/8/4P3/3P4/2S1K3[] b - - 0 1"
    p = rules.play(p, "e8d8")
    assert "d2d4" in rules.legal_moves(p)
    assert rules.format_fen(rules.play(p, "d2d4")) == "3k4/8/8/8/3P4/4P3/8/2S1K3[] b - d3 0 2"


def test_alseid_promotion():
    fen = "4k3/P7/8/8/8/8/8/4K3[] w - - 0 1"
    assert moves("alseid", fen) == sorted(
        ["a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7a8s", "e1d1", "e1d2", "e1e2", "e1f2", "e1f1"])


# =============================================================================================
# §4 Camel and Rhino
# =============================================================================================

def test_camel_rhino_start_moves():
    # 76 plain moves plus 29 swaps, no takeovers.
    s = rules.START_FENS["camel-rhino"]
    plain = set(moves("camel-rhino-plain", s))
    full = set(moves("camel-rhino", s))
    assert len(plain) == 76
    assert sorted(full - plain) == sorted([
        "a1b2", "j1i2", "b2c2", "b2a3", "b2b3", "b2c3", "c2d2", "c2b3", "c2c3", "c2d3",
        "d2e2", "d2c3", "d2d3", "e2f2", "e2d3", "f2g2", "f2g3", "g2h2", "g2g3", "g2h3",
        "h2i2", "h2g3", "h2h3", "h2i3", "i2h3", "i2i3", "i2j3", "d3e4", "g3f4"])
    assert plain <= full


def test_camel_moves_and_all_or_nothing_takeover():
    fen = "9k/10/10/10/10/10/4p5/4n5/4C5/K8h w - - 0 1"
    # Ce2: ferz d1 f1 d3 f3; leaps d5 f5 (jumping e3, e4: both black, so also a takeover),
    # b3 h3 b1 h1 (nothing to convert).  Ka1: a2 b1 b2.
    expected = ["e2d1", "e2f1", "e2d3", "e2f3", "e2d5", "e2d5t", "e2f5", "e2f5t",
                "e2b3", "e2h3", "e2b1", "e2h1", "a1a2", "a1b1", "a1b2"]
    assert moves("camel-rhino", fen) == sorted(expected)
    assert after("camel-rhino", fen, "e2f5t") == \
        "9k/10/10/10/10/5C4/4P5/4N5/10/K8h b - - 0 1"
    assert after("camel-rhino", fen, "e2f5") == \
        "9k/10/10/10/10/5C4/4p5/4n5/10/K8h b - - 1 1"


def test_rhino_takeover_skips_king_on_jumped_square():
    fen = "K9/10/10/10/10/4b5/3k6/2H7/10/9c w - - 0 1"
    # Hc3 leaps e6 / f5 jump d4 (king: never converted) and e5 (bishop): takeover converts e5.
    expected = ["a10b9", "a10b10", "c3b3", "c3c2", "c3c4", "c3d3", "c3a6", "c3e6", "c3e6t",
                "c3f5", "c3f5t", "c3f1"]
    assert moves("camel-rhino", fen) == sorted(expected)
    assert after("camel-rhino", fen, "c3e6t") == \
        "K9/10/10/10/4H5/4B5/3k6/10/10/9c b - - 0 1"


def test_knight_and_zebra_jumped_squares():
    # Adjacent to Cd4.  Black pe6 (orthogonal neighbour of e5) and bf6 (diagonal neighbour).
    fen_n = "9k/10/10/10/4pb4/4N5/3C6/10/10/K8h w - - 0 1"
    fen_z = fen_n.replace("N", "Z")
    t_n = [m for m in moves("camel-rhino", fen_n) if m.endswith("t")]
    t_z = [m for m in moves("camel-rhino", fen_z) if m.endswith("t")]
    assert t_n == ["e5d7t", "e5f7t"]          # knight jumps e6
    assert t_z == ["e5f7t", "e5g6t"]          # zebra jumps f6
    assert after("camel-rhino", fen_n, "e5f7t") == \
        "9k/10/10/5N4/4Pb4/10/3C6/10/10/K8h b - - 0 1"
    # Without an adjacent Camel or Rhino there are no knight takeovers.
    far = "9k/10/10/10/4pb4/4N5/10/C9/10/K8h w - - 0 1"
    assert [m for m in moves("camel-rhino", far) if m.endswith("t")] == []


def test_king_takeover_and_its_extra_condition():
    fen = "9k/10/10/10/4p5/4K5/3C6/10/10/9h w - - 0 1"
    camel = ["d4c3", "d4e3", "d4c5", "d4e7", "d4c7", "d4e1", "d4c1", "d4g5", "d4g3",
             "d4a5", "d4a3"]
    # Ke5: d6 e4 e6(x) f4 f6 (d5, f5 attacked by pe6); takeover e5e7 over pe6; swap d4e5.
    assert moves("camel-rhino", fen) == sorted(
        camel + ["e5d6", "e5e4", "e5e6", "e5f4", "e5f6", "e5e7", "d4e5"])
    assert after("camel-rhino", fen, "e5e7") == \
        "9k/10/10/4K5/4P5/10/3C6/10/10/9h b - - 0 1"
    # nd8 defends e6 (not e7): the King may neither capture nor take over the pawn.
    fen2 = "9k/10/3n6/10/4p5/4K5/3C6/10/10/9h w - - 0 1"
    assert moves("camel-rhino", fen2) == sorted(
        camel + ["e5d6", "e5e4", "e5f4", "e5f6", "d4e5"])


def test_queen_takeover_does_not_need_undefended_victim():
    fen = "k9/10/3n6/10/4p5/4Q5/3C6/10/10/K8h w - - 0 1"
    targets = ["e6", "e4", "e3", "e2", "e1", "d5", "c5", "b5", "a5", "f5", "g5", "h5", "i5",
               "j5", "d6", "c7", "b8", "a9", "f6", "g7", "h8", "i9", "j10", "f4", "g3", "h2",
               "i1", "e7"]
    assert moves_from("camel-rhino", fen, "e5") == sorted("e5" + t for t in targets)


def test_rook_takeover_landing_must_be_undefended():
    fen = "9k/10/10/10/10/3n6/10/10/2C7/K2R5h w - - 0 1"
    base = ["d1d2", "d1d3", "d1d4", "d1d5", "d1e1", "d1f1", "d1g1", "d1h1", "d1i1", "d1j1",
            "d1c1", "d1b1", "d1c2"]       # d1c2 is the swap with Cc2 (named from d1)
    assert moves_from("camel-rhino", fen, "d1") == sorted(base + ["d1d6"])
    assert after("camel-rhino", fen, "d1d6") == \
        "9k/10/10/10/3R6/3N6/10/10/2C7/K8h b - - 0 1"
    # bb8 defends d6: no takeover.
    fen2 = "9k/10/1b8/10/10/3n6/10/10/2C7/K2R5h w - - 0 1"
    assert moves_from("camel-rhino", fen2, "d1") == sorted(base)
    # In the plain variant: no takeover, no swap.
    assert moves_from("camel-rhino-plain", fen, "d1") == sorted(base[:-1])


def test_wazir_takeover_landing_defended_by_jumped_piece():
    fen = "9k/9c/10/10/4b5/4W5/4H5/10/10/K9 w - - 0 1"
    assert moves_from("camel-rhino", fen, "e5") == ["e5d5", "e5e6", "e5e7", "e5f5"]
    # A black wazir on e6 itself attacks e7 (position before the move): no takeover.
    fen2 = fen.replace("4b5", "4w5")
    assert moves_from("camel-rhino", fen2, "e5") == ["e5d5", "e5e6", "e5f5"]


def test_pawn_takeover():
    fen = "2r6k/10/10/10/3n1n4/4P5/3C6/10/10/K8h w - - 0 1"
    # e6; captures d6 f6; takeover over f6 to g7 (c7 is defended by rc10).
    assert moves_from("camel-rhino", fen, "e5") == ["e5d6", "e5e6", "e5f6", "e5g7"]
    assert after("camel-rhino", fen, "e5g7") == \
        "2r6k/10/10/6P3/3n1N4/10/3C6/10/10/K8h b - - 0 1"


def test_pawn_takeover_promotes():
    fen = "10/5n4/4P5/3C6/10/9k/10/10/10/K8h w - - 0 1"
    assert moves_from("camel-rhino", fen, "e8") == sorted(
        ["e8e9", "e8f9"] + ["e8g10" + x for x in "qrbnzchw"])


def test_swaps():
    fen = "r8k/9c/10/10/10/10/10/1PP7/HWW7/K9 w - - 0 1"
    p = pos("camel-rhino", fen)
    own = {sq for sq, x in enumerate(p.board) if x != "." and x.isupper()}
    swaps = [m for m in rules.legal_moves(p)
             if rules.parse_square(10, 10, m[2:4]) in own]
    # Ka1-Ha2 forbidden (a2 attacked by ra10); Wb2-Wc2 and Pb3-Pc3 forbidden.
    assert sorted(swaps) == sorted(["a1b2", "a2b2", "a2b3", "b2b3", "b2c3", "c2b3", "c2c3"])
    assert after("camel-rhino", fen, "b2b3") == \
        "r8k/9c/10/10/10/10/10/1WP7/HPW7/K9 b - - 0 1"
    assert after("camel-rhino", fen, "a2b2") == \
        "r8k/9c/10/10/10/10/10/1PP7/WHW7/K9 b - - 1 1"
    # A swap may be written from either square; it is formatted from the lower one.
    assert after("camel-rhino", fen, "b3b2") == after("camel-rhino", fen, "b2b3")
    with pytest.raises(ValueError):
        rules.play(pos("camel-rhino", fen), "c3b3")         # Pb3-Pc3 is forbidden


def test_swap_promotes_pawn():
    fen = "3R6/4P5/10/10/10/9k/10/C9/10/K8h w - - 0 1"
    assert moves_from("camel-rhino", fen, "e9") == sorted(
        ["e9e10" + x for x in "qrbnzchw"] + ["e9d10" + x for x in "qrbnzchw"])
    assert after("camel-rhino", fen, "e9d10q") == \
        "3Q6/4R5/10/10/10/9k/10/C9/10/K8h b - - 0 1"
    assert after("camel-rhino", fen, "d10e9q") == after("camel-rhino", fen, "e9d10q")


def test_wazir_promotion():
    fen = "10/4W5/10/10/10/9k/10/C9/10/K8h w - - 0 1"
    assert moves_from("camel-rhino", fen, "e9") == sorted(
        ["e9e10" + x for x in "qrbnzchw"] + ["e9d9", "e9f9", "e9e8"])
    assert after("camel-rhino", fen, "e9e10w") == \
        "4W5/10/10/10/10/9k/10/C9/10/K8h b - - 1 1"
    # The plain test variant: wazirs never promote.
    assert moves_from("camel-rhino-plain", fen, "e9") == ["e9d9", "e9e10", "e9e8", "e9f9"]
    # Already on the last rank: moving along it does not promote again.
    fen2 = "4W5/10/10/10/10/9k/10/C9/10/K8h w - - 0 1"
    assert moves_from("camel-rhino", fen2, "e10") == ["e10d10", "e10e9", "e10f10"]


def test_en_passant_on_10x10():
    fen = "9k/10/3p6/10/2P7/10/10/C9/10/K8h b - - 0 1"
    p = rules.play(pos("camel-rhino", fen), "d8d6")
    assert rules.format_fen(p) == "9k/10/10/10/2Pp6/10/10/C9/10/K8h w - d7 0 2"
    assert rules.format_fen(rules.play(p, "c6d7")) == \
        "9k/10/10/3P6/10/10/10/C9/10/K8h b - - 0 2"


def test_losing_last_camel_and_rhino_ends_the_game():
    fen = "9k/10/10/10/10/10/10/4h5/4C5/K9 w - - 0 1"
    p = pos("camel-rhino", fen)
    child = rules.play(p, "e2f5t")
    assert rules.format_fen(child) == "9k/10/10/10/10/5C4/10/4H5/10/K9 b - - 0 1"
    assert rules.legal_moves(child) == []
    assert rules.legal_moves(rules.play(p, "e2f5")) != []
    # A position where one side owns no Camel and no Rhino has no moves at all ...
    over = "9k/10/10/10/10/4C5/10/10/10/K9 w - - 0 1"
    assert moves("camel-rhino", over) == []
    # ... but the plain test variant has no such rule.
    assert len(moves("camel-rhino-plain", over)) == 15


# =============================================================================================
# CLI
# =============================================================================================

def test_cli_batch_and_moves():
    cli = os.path.join(HERE, "cli.py")
    reqs = [{"variant": "alpaca", "fen": rules.START_FENS["alpaca"]},
            {"variant": "chess", "fen": "garbage"}]
    out = subprocess.run([sys.executable, cli, "batch"], input="\n".join(json.dumps(r)
                         for r in reqs) + "\n", capture_output=True, text=True, check=True)
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    assert lines[0] == {"moves": {"accept": START + "[Aa] w KQkq - 0 1",
                                  "decline": START + "[Aa?] b KQkq - 0 1"}}
    assert "error" in lines[1]
    out = subprocess.run([sys.executable, cli, "perft", "chess", rules.START_FENS["chess"], "2"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "400"
    out = subprocess.run([sys.executable, cli, "moves", "chess", rules.START_FENS["chess"]],
                         capture_output=True, text=True, check=True)
    assert "e2e4 rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1" in \
        out.stdout.splitlines()
