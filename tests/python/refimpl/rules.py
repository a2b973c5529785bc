"""Independent reference implementation of RULES.md, the project's rules text.

A deliberately plain mailbox implementation, written from the rule text only, to serve as a
differential-testing oracle for the Rust engine.  Correctness and readability over speed.

Public API:
    parse_fen(variant, fen) -> Position      (ValueError on invalid input)
    format_fen(pos) -> str
    legal_moves(pos) -> list[str]            (coordinate move strings, sorted)
    legal_successors(pos) -> dict[str, Position]
    play(pos, move_str) -> Position          (new position; ValueError if illegal)
    perft(pos, depth) -> int

Board: a flat list, index = rank * files + file (rank 0 = rank 1, file 0 = file a).
Each entry is '.' (empty) or a piece letter (upper case White, lower case Black).
Interpretation choices are listed in CHOICES.md next to this file.
"""

FILE_LETTERS = "abcdefghij"

EMPTY = "."

ORTH = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KING_DIRS = ORTH + DIAG
KNIGHT_LEAPS = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]
CAMEL_LEAPS = [(1, 3), (3, 1), (-1, 3), (-3, 1), (1, -3), (3, -1), (-1, -3), (-3, -1)]
RHINO_LEAPS = [(2, 3), (3, 2), (-2, 3), (-3, 2), (2, -3), (3, -2), (-2, -3), (-3, -2)]


class VariantConfig:
    def __init__(self, name, size, kinds, promo, castling=False, reserve=None, reserve_count=0,
                 samefile=False, alseid=None, takeovers=False, swaps=False,
                 wazir_promotes=False, camel_rule=False):
        self.name = name
        self.size = size              # 8 or 10 (square boards only)
        self.kinds = kinds            # upper-case piece letters allowed on the board
        self.promo = promo            # lower-case promotion letters
        self.castling = castling
        self.reserve = reserve        # 'A' or 'S' for gating variants, else None
        self.reserve_count = reserve_count
        self.samefile = samefile
        self.alseid = alseid          # None, 'strong' or 'weak'
        self.takeovers = takeovers
        self.swaps = swaps
        self.wazir_promotes = wazir_promotes
        self.camel_rule = camel_rule


VARIANTS = {
    "chess": VariantConfig("chess", 8, "KQRBNP", "qrbn", castling=True),
    "alpaca": VariantConfig("alpaca", 8, "KQRBNPA", "qrbn", castling=True,
                            reserve="A", reserve_count=1),
    "alpaca2": VariantConfig("alpaca2", 8, "KQRBNPA", "qrbn", castling=True,
                             reserve="A", reserve_count=2),
    "alpaca-samefile": VariantConfig("alpaca-samefile", 8, "KQRBNPA", "qrbn", castling=True,
                                     reserve="A", reserve_count=1, samefile=True),
    "alseid": VariantConfig("alseid", 8, "KQRBNPS", "qrbns", castling=True,
                            reserve="S", reserve_count=1, alseid="strong"),
    "alseid-weak": VariantConfig("alseid-weak", 8, "KQRBNPS", "qrbns", castling=True,
                                 reserve="S", reserve_count=1, alseid="weak"),
    "camel-rhino": VariantConfig("camel-rhino", 10, "KQRBNPCHZW", "qrbnzchw",
                                 takeovers=True, swaps=True, wazir_promotes=True,
                                 camel_rule=True),
    # Test-only: Camel/Rhino movement with no takeovers, no swaps, no wazir promotion and no
    # Camel/Rhino-loss rule.  Pawns still promote to Q, R, B, N, Z, C, H, W.
    "camel-rhino-plain": VariantConfig("camel-rhino-plain", 10, "KQRBNPCHZW", "qrbnzchw"),
}

START_FENS = {
    "chess": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "alpaca": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] w KQkq - 0 1",
    "alpaca2": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[AAaa?] w KQkq - 0 1",
    "alpaca-samefile": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] w KQkq - 0 1",
    "alseid": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Ss?] w KQkq - 0 1",
    "alseid-weak": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Ss?] w KQkq - 0 1",
    "camel-rhino": "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1",
    "camel-rhino-plain":
        "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1",
}


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------

def color_of(piece):
    return "w" if piece.isupper() else "b"


def opponent(color):
    return "b" if color == "w" else "w"


def colored(kind, color):
    return kind.upper() if color == "w" else kind.lower()


def sign(x):
    return (x > 0) - (x < 0)


def square_name(files, sq):
    return FILE_LETTERS[sq % files] + str(sq // files + 1)


def parse_square(files, ranks, text):
    if len(text) < 2 or text[0] not in FILE_LETTERS[:files]:
        raise ValueError("bad square: %r" % text)
    digits = text[1:]
    if not digits.isdigit() or digits[0] == "0":
        raise ValueError("bad square: %r" % text)
    rank = int(digits)
    if not 1 <= rank <= ranks:
        raise ValueError("bad square: %r" % text)
    return (rank - 1) * files + FILE_LETTERS.index(text[0])


class Position:
    """A complete game state.  Treat as immutable: every move builds a new one."""

    __slots__ = ("cfg", "files", "ranks", "board", "turn", "castling", "ep", "halfmove",
                 "fullmove", "entries", "pending")

    def __init__(self, cfg, board, turn, castling, ep, halfmove, fullmove, entries, pending):
        self.cfg = cfg
        self.files = cfg.size
        self.ranks = cfg.size
        self.board = board          # list of str
        self.turn = turn            # 'w' or 'b'
        self.castling = castling    # string, subset of 'KQkq' in that order
        self.ep = ep                # square index or None
        self.halfmove = halfmove
        self.fullmove = fullmove
        # Reserve entries, gating variants only: {'w': [...], 'b': [...]}; each item is a gate
        # file (int, placed and live) or None (not placed yet).
        self.entries = entries
        self.pending = pending      # the '?' decision marker

    @property
    def variant(self):
        return self.cfg.name

    def phase(self):
        if self.cfg.reserve is None:
            return "play"
        if self.pending:
            return "decide"
        if any(f is None for f in self.entries["w"] + self.entries["b"]):
            return "place"
        return "play"

    def __repr__(self):
        return "Position(%r, %r)" % (self.cfg.name, format_fen(self))


def _idx(pos, f, r):
    return r * pos.files + f


def _on_board(pos, f, r):
    return 0 <= f < pos.files and 0 <= r < pos.ranks


def home_rank(pos, color):
    return 0 if color == "w" else pos.ranks - 1


def last_rank(pos, color):
    return pos.ranks - 1 if color == "w" else 0


# ---------------------------------------------------------------------------------------------
# Attacks ("attacked" / "defended" = some piece of `by` has an ordinary capturing move onto sq)
# ---------------------------------------------------------------------------------------------

def is_attacked(pos, board, sq, by):
    files, ranks = pos.files, pos.ranks
    f0, r0 = sq % files, sq // files

    def kind_at(f, r):
        if 0 <= f < files and 0 <= r < ranks:
            p = board[r * files + f]
            if p != EMPTY and color_of(p) == by:
                return p.upper()
        return None

    # Pawns capture one square diagonally forward.
    pawn_rank = r0 - 1 if by == "w" else r0 + 1
    for df in (-1, 1):
        if kind_at(f0 + df, pawn_rank) == "P":
            return True
    # One-square steppers.
    for df, dr in ORTH:
        # King, Wazir, Alpaca (its one-square step; the leap never captures), Rhino (wazir step).
        if kind_at(f0 + df, r0 + dr) in ("K", "W", "A", "H"):
            return True
    for df, dr in DIAG:
        # King, Camel (ferz step).
        if kind_at(f0 + df, r0 + dr) in ("K", "C"):
            return True
    for df, dr in KNIGHT_LEAPS:
        if kind_at(f0 + df, r0 + dr) in ("N", "Z"):
            return True
    for df, dr in CAMEL_LEAPS:
        if kind_at(f0 + df, r0 + dr) == "C":
            return True
    for df, dr in RHINO_LEAPS:
        if kind_at(f0 + df, r0 + dr) == "H":
            return True
    # Sliders: the first piece on each line.
    for dirs, kinds in ((ORTH, ("R", "Q")), (DIAG, ("B", "Q"))):
        for df, dr in dirs:
            f, r = f0 + df, r0 + dr
            while 0 <= f < files and 0 <= r < ranks:
                p = board[r * files + f]
                if p != EMPTY:
                    if color_of(p) == by and p.upper() in kinds:
                        return True
                    break
                f += df
                r += dr
    # Alseids never attack; Alpaca jumps, takeovers and swaps never attack.
    return False


def find_king(pos, board, color):
    king = colored("K", color)
    for sq, p in enumerate(board):
        if p == king:
            return sq
    return None


def in_check(pos, board, color):
    ksq = find_king(pos, board, color)
    return ksq is not None and is_attacked(pos, board, ksq, opponent(color))


def owns_camel_or_rhino(board, color):
    wanted = (colored("C", color), colored("H", color))
    return any(p in wanted for p in board)


# ---------------------------------------------------------------------------------------------
# FEN
# ---------------------------------------------------------------------------------------------

def parse_fen(variant, fen):
    if variant not in VARIANTS:
        raise ValueError("unknown variant: %r" % variant)
    cfg = VARIANTS[variant]
    if not isinstance(fen, str):
        raise ValueError("FEN must be a string")
    fields = fen.split()
    if len(fields) != 6:
        raise ValueError("FEN must have six fields")
    board_field, side_field, castling_field, ep_field, half_field, full_field = fields
    files = ranks = cfg.size

    # --- reserve bracket ---
    bracket = None
    if "[" in board_field or "]" in board_field:
        if cfg.reserve is None:
            raise ValueError("variant %s has no reserve bracket" % variant)
        open_at = board_field.find("[")
        if open_at < 0 or not board_field.endswith("]") or board_field.count("[") != 1 \
                or board_field.count("]") != 1:
            raise ValueError("malformed reserve bracket")
        bracket = board_field[open_at + 1:-1]
        board_field = board_field[:open_at]

    # --- board ---
    rows = board_field.split("/")
    if len(rows) != ranks:
        raise ValueError("board must have %d ranks" % ranks)
    board = [EMPTY] * (files * ranks)
    for i, row in enumerate(rows):
        r = ranks - 1 - i
        f = 0
        j = 0
        while j < len(row):
            ch = row[j]
            if ch.isdigit():
                k = j
                while k < len(row) and row[k].isdigit():
                    k += 1
                run = row[j:k]
                if run[0] == "0":
                    raise ValueError("bad empty run %r" % run)
                f += int(run)
                j = k
            else:
                if ch.upper() not in cfg.kinds or not ch.isalpha():
                    raise ValueError("bad piece letter %r" % ch)
                if f >= files:
                    raise ValueError("rank too long")
                board[r * files + f] = ch
                f += 1
                j += 1
            if f > files:
                raise ValueError("rank too long")
        if f != files:
            raise ValueError("rank %d has %d files, need %d" % (r + 1, f, files))

    # --- side to move ---
    if side_field not in ("w", "b"):
        raise ValueError("bad side to move")
    turn = side_field

    # --- castling ---
    if castling_field == "-":
        castling = ""
    else:
        if not cfg.castling:
            raise ValueError("variant %s has no castling" % variant)
        if any(c not in "KQkq" for c in castling_field) or \
                len(set(castling_field)) != len(castling_field):
            raise ValueError("bad castling field")
        castling = "".join(c for c in "KQkq" if c in castling_field)

    # --- clocks ---
    if not half_field.isdigit() or not full_field.isdigit():
        raise ValueError("bad move counters")
    halfmove = int(half_field)
    fullmove = int(full_field)
    if fullmove < 1:
        raise ValueError("fullmove number must be at least 1")

    # --- kings ---
    if board.count("K") != 1 or board.count("k") != 1:
        raise ValueError("each side needs exactly one king")

    # --- pawns on the 8x8 board may not stand on the first or last rank ---
    if files == 8:
        for f in range(files):
            for r in (0, ranks - 1):
                if board[r * files + f] in ("P", "p"):
                    raise ValueError("pawn on first or last rank")

    # --- castling rights need the king and rook on their original squares ---
    for right in castling:
        color = "w" if right.isupper() else "b"
        r = 0 if color == "w" else ranks - 1
        king_sq = r * files + 4
        rook_sq = r * files + (7 if right.upper() == "K" else 0)
        if board[king_sq] != colored("K", color) or board[rook_sq] != colored("R", color):
            raise ValueError("castling right %s without king and rook at home" % right)

    pos = Position(cfg, board, turn, castling, None, halfmove, fullmove,
                   {"w": [], "b": []} if cfg.reserve else None, False)

    # --- en passant ---
    if ep_field != "-":
        ep = parse_square(files, ranks, ep_field)
        mover = opponent(turn)       # the side that (supposedly) just double-stepped
        step = 1 if mover == "w" else -1
        start = _double_step_start_rank(pos, mover)
        ep_rank = start + step
        ef, er = ep % files, ep // files
        if er != ep_rank:
            raise ValueError("en passant square on the wrong rank")
        if board[ep] != EMPTY or board[_idx(pos, ef, start)] != EMPTY \
                or board[_idx(pos, ef, er + step)] != colored("P", mover):
            raise ValueError("en passant square without a double-stepped pawn")
        pos.ep = ep

    # --- reserve entries ---
    if cfg.reserve is not None and bracket is not None:
        _parse_bracket(pos, bracket)

    # --- the side that just moved may not be in check ---
    if in_check(pos, board, opponent(turn)):
        raise ValueError("the side not to move is in check")
    return pos


def _parse_bracket(pos, text):
    cfg = pos.cfg
    letter = cfg.reserve
    n = cfg.reserve_count
    entries = {"w": [], "b": []}
    pending = False
    i = 0
    seen_black = False
    while i < len(text):
        ch = text[i]
        if ch == "?":
            if i != len(text) - 1:
                raise ValueError("'?' must come last in the bracket")
            pending = True
            i += 1
            continue
        if ch == letter:
            color = "w"
            if seen_black:
                raise ValueError("White's reserve entries must come before Black's")
        elif ch == letter.lower():
            color = "b"
            seen_black = True
        else:
            raise ValueError("bad reserve letter %r" % ch)
        i += 1
        file_ = None
        if i < len(text) and text[i] == "@":
            if i + 1 >= len(text) or text[i + 1] not in FILE_LETTERS[:pos.files]:
                raise ValueError("bad gate file in bracket")
            file_ = FILE_LETTERS.index(text[i + 1])
            i += 2
        entries[color].append(file_)

    for color in "wb":
        items = entries[color]
        if len(items) > n:
            raise ValueError("too many reserve entries")
        placed = [f for f in items if f is not None]
        if placed and len(placed) != len(items):
            raise ValueError("a side's reserve entries are either all placed or all unplaced")
        if len(set(placed)) != len(placed):
            raise ValueError("two reserve entries on one gate file")

    w, b = entries["w"], entries["b"]
    w_unplaced = bool(w) and w[0] is None
    b_unplaced = bool(b) and b[0] is None
    if pending:
        if len(w) != n or len(b) != n or not w_unplaced or not b_unplaced:
            raise ValueError("'?' needs both full reserves unplaced")
    elif w_unplaced or b_unplaced:
        # Placement phase: White places first, then Black.
        if pos.turn == "w":
            ok = len(w) == n and w_unplaced and len(b) == n and b_unplaced
        else:
            ok = len(w) == n and not w_unplaced and len(b) == n and b_unplaced
        if not ok:
            raise ValueError("inconsistent placement state in bracket")

    # Placed entries are live gates: the home square must hold a piece of the owner's colour
    # (taken to be the original one), and that piece may not be an Alseid.
    for color in "wb":
        for f in entries[color]:
            if f is None:
                continue
            p = pos.board[_idx(pos, f, home_rank(pos, color))]
            if p == EMPTY or color_of(p) != color:
                raise ValueError("live gate without its home piece")
            if p.upper() == "S":
                raise ValueError("Alseid on a live home square")

    entries["w"] = sorted(w, key=lambda f: -1 if f is None else f)
    entries["b"] = sorted(b, key=lambda f: -1 if f is None else f)
    pos.entries = entries
    pos.pending = pending


def format_bracket(pos):
    letter = pos.cfg.reserve
    out = []
    for color in "wb":
        ch = letter if color == "w" else letter.lower()
        items = pos.entries[color]
        for f in sorted(f for f in items if f is not None):
            out.append(ch + "@" + FILE_LETTERS[f])
        for f in items:
            if f is None:
                out.append(ch)
    if pos.pending:
        out.append("?")
    return "[" + "".join(out) + "]"


def format_fen(pos):
    rows = []
    for r in range(pos.ranks - 1, -1, -1):
        row = ""
        run = 0
        for f in range(pos.files):
            p = pos.board[_idx(pos, f, r)]
            if p == EMPTY:
                run += 1
            else:
                if run:
                    row += str(run)
                    run = 0
                row += p
        if run:
            row += str(run)
        rows.append(row)
    board = "/".join(rows)
    if pos.cfg.reserve is not None:
        board += format_bracket(pos)
    castling = pos.castling or "-"
    ep = "-" if pos.ep is None else square_name(pos.files, pos.ep)
    return "%s %s %s %s %d %d" % (board, pos.turn, castling, ep, pos.halfmove, pos.fullmove)


# ---------------------------------------------------------------------------------------------
# Move generation
# ---------------------------------------------------------------------------------------------

def _double_step_start_rank(pos, color):
    if pos.ranks == 8:
        return 1 if color == "w" else 6
    return 2 if color == "w" else pos.ranks - 3      # 10x10: rank 3 / rank 8


def _new_position(pos, board, turn, castling, ep, halfmove, fullmove, entries, pending):
    return Position(pos.cfg, board, turn, castling, ep, halfmove, fullmove, entries, pending)


def _copy_entries(pos):
    if pos.entries is None:
        return None
    return {"w": list(pos.entries["w"]), "b": list(pos.entries["b"])}


def legal_successors(pos):
    """Return {move_string: successor Position} for all legal moves."""
    phase = pos.phase()
    if phase in ("decide", "place"):
        # RULES.md §2.2: prelude actions are moves like any other, legal only if the
        # mover's king is not attacked afterwards (so none while in check).
        prelude = _decision_moves(pos) if phase == "decide" else _placement_moves(pos)
        return {m: p for m, p in prelude.items() if not in_check(p, p.board, pos.turn)}
    if pos.cfg.camel_rule and (not owns_camel_or_rhino(pos.board, "w")
                               or not owns_camel_or_rhino(pos.board, "b")):
        return {}        # the game is over by the Camel/Rhino rule
    return _play_moves(pos)


def legal_moves(pos):
    return sorted(legal_successors(pos))


def play(pos, move_str):
    succ = legal_successors(pos)
    if move_str in succ:
        return succ[move_str]
    # A swap may be written from either square (RULES.md §4.4); the canonical form starts
    # from the lower square.  Accept the reversed form of a legal swap.
    if pos.cfg.swaps and pos.phase() == "play":
        squares = _split_squares(pos, move_str)
        if squares is not None:
            a, b, suffix = squares
            reverse = square_name(pos.files, b) + square_name(pos.files, a) + suffix
            pa, pb = pos.board[a], pos.board[b]
            own = [p != EMPTY and color_of(p) == pos.turn for p in (pa, pb)]
            if all(own) and reverse in succ:
                return succ[reverse]
    raise ValueError("illegal move %r" % move_str)


def _split_squares(pos, text):
    """Split 'e9d10q' into (from_index, to_index, suffix), or None."""
    i = 0
    squares = []
    for _ in range(2):
        if i >= len(text) or text[i] not in FILE_LETTERS[:pos.files]:
            return None
        j = i + 1
        while j < len(text) and text[j].isdigit():
            j += 1
        try:
            squares.append(parse_square(pos.files, pos.ranks, text[i:j]))
        except ValueError:
            return None
        i = j
    return squares[0], squares[1], text[i:]


def perft(pos, depth):
    if depth == 0:
        return 1
    succ = legal_successors(pos)
    if depth == 1:
        return len(succ)
    return sum(perft(child, depth - 1) for child in succ.values())


# --- prelude ---------------------------------------------------------------------------------

def _decision_moves(pos):
    out = {}
    if pos.turn == "w":
        # accept: White goes on to place (still White to move).
        out["accept"] = _new_position(pos, pos.board[:], "w", pos.castling, pos.ep,
                                      pos.halfmove, pos.fullmove, _copy_entries(pos), False)
        # decline: Black decides.
        out["decline"] = _new_position(pos, pos.board[:], "b", pos.castling, pos.ep,
                                       pos.halfmove, pos.fullmove, _copy_entries(pos), True)
    else:
        # Black accepts (overruling White): White places first.
        out["accept"] = _new_position(pos, pos.board[:], "w", pos.castling, pos.ep,
                                      pos.halfmove, pos.fullmove, _copy_entries(pos), False)
        # Both declined: the reserve is removed, White to move.
        out["decline"] = _new_position(pos, pos.board[:], "w", pos.castling, pos.ep,
                                       pos.halfmove, pos.fullmove, {"w": [], "b": []}, False)
    return out


def _placement_moves(pos):
    cfg = pos.cfg
    color = pos.turn
    n = len(pos.entries[color])
    hr = home_rank(pos, color)

    def gate_ok(f):
        p = pos.board[_idx(pos, f, hr)]
        return p != EMPTY and color_of(p) == color and p.upper() != "S"

    choices = []
    if n == 1:
        for f in range(8):
            if cfg.samefile and color == "b" and pos.entries["w"] != [f]:
                continue
            choices.append((f,))
    elif n == 2:
        for f1 in range(8):
            for f2 in range(f1 + 1, 8):
                if (f1, f2) in ((0, 4), (4, 7)):      # {a, e} and {e, h} are forbidden
                    continue
                choices.append((f1, f2))
    out = {}
    for files in choices:
        if not all(gate_ok(f) for f in files):
            continue
        entries = _copy_entries(pos)
        entries[color] = list(files)
        name = cfg.reserve + "@" + "".join(FILE_LETTERS[f] for f in files)
        out[name] = _new_position(pos, pos.board[:], opponent(color), pos.castling, pos.ep,
                                  pos.halfmove, pos.fullmove, entries, False)
    return out


# --- ordinary play ---------------------------------------------------------------------------

def _finish(pos, board, reset_clock, ep=None):
    """Complete a move whose piece displacements are already on `board`.

    Applies Pioneer gating, updates castling rights, clocks and side to move, and returns the
    new Position, or None if the mover's king is attacked afterwards (illegal move).
    """
    me = pos.turn
    entries = _copy_entries(pos)
    if entries is not None:
        for color in "wb":
            keep = []
            for f in entries[color]:
                home = _idx(pos, f, home_rank(pos, color))
                content = board[home]
                if content == EMPTY:
                    # The home piece left by some means other than capture: the reserve
                    # piece enters, as part of this move.
                    board[home] = colored(pos.cfg.reserve, color)
                elif color_of(content) != color:
                    # The home piece was captured on its home square: gate forfeited.
                    pass
                else:
                    keep.append(f)
            entries[color] = keep
    castling = ""
    if pos.castling:
        for right in pos.castling:
            color = "w" if right.isupper() else "b"
            r = home_rank(pos, color)
            king_sq = _idx(pos, 4, r)
            rook_sq = _idx(pos, 7 if right.upper() == "K" else 0, r)
            if board[king_sq] == colored("K", color) and board[rook_sq] == colored("R", color):
                castling += right
    if in_check(pos, board, me):
        return None
    halfmove = 0 if reset_clock else pos.halfmove + 1
    fullmove = pos.fullmove + 1 if me == "b" else pos.fullmove
    return _new_position(pos, board, opponent(me), castling, ep, halfmove, fullmove,
                         entries, False)


def _promotion_letters(pos, piece, from_sq, to_sq):
    """Promotion choices for `piece` going from_sq -> to_sq: a list of letters or [None]."""
    kind = piece.upper()
    color = color_of(piece)
    lr = last_rank(pos, color)
    arrives = to_sq // pos.files == lr and from_sq // pos.files != lr
    if not arrives:
        return [None]
    if kind == "P":
        return list(pos.cfg.promo)
    if kind == "W" and pos.cfg.wazir_promotes:
        return list(pos.cfg.promo)
    return [None]


def _near_friendly_camel_or_rhino(pos, sq, color):
    f0, r0 = sq % pos.files, sq // pos.files
    wanted = (colored("C", color), colored("H", color))
    for df, dr in KING_DIRS:
        f, r = f0 + df, r0 + dr
        if _on_board(pos, f, r) and pos.board[_idx(pos, f, r)] in wanted:
            return True
    return False


def _is_enemy_non_king(p, me):
    return p != EMPTY and color_of(p) != me and p.upper() != "K"


def _convert(p):
    return p.lower() if p.isupper() else p.upper()


def _play_moves(pos):
    cfg = pos.cfg
    board = pos.board
    me = pos.turn
    them = opponent(me)
    files = pos.files
    out = {}

    def add(name, new_board, reset, ep=None):
        result = _finish(pos, new_board, reset, ep)
        if result is not None:
            if name in out:
                raise AssertionError("duplicate move string %s" % name)
            out[name] = result

    def nm(a, b):
        return square_name(files, a) + square_name(files, b)

    def target_ok(t):
        """Empty or enemy-occupied (ordinary move or replacement capture)."""
        return board[t] == EMPTY or color_of(board[t]) == them

    def simple_move(a, b, extra=""):
        """Move the piece on a to b (capturing by replacement), with promotion choices."""
        piece = board[a]
        capture = board[b] != EMPTY
        for letter in _promotion_letters(pos, piece, a, b):
            nb = board[:]
            nb[a] = EMPTY
            nb[b] = piece if letter is None else colored(letter, me)
            reset = capture or piece.upper() == "P"
            add(nm(a, b) + extra + (letter or ""), nb, reset)

    for sq in range(files * pos.ranks):
        piece = board[sq]
        if piece == EMPTY or color_of(piece) != me:
            continue
        kind = piece.upper()
        f0, r0 = sq % files, sq // files

        def steps(deltas):
            for df, dr in deltas:
                f, r = f0 + df, r0 + dr
                if _on_board(pos, f, r):
                    t = _idx(pos, f, r)
                    if target_ok(t):
                        simple_move(sq, t)

        def slides(dirs):
            for df, dr in dirs:
                f, r = f0 + df, r0 + dr
                while _on_board(pos, f, r):
                    t = _idx(pos, f, r)
                    if board[t] == EMPTY:
                        simple_move(sq, t)
                    else:
                        if color_of(board[t]) == them:
                            simple_move(sq, t)
                        break
                    f += df
                    r += dr

        if kind == "K":
            steps(KING_DIRS)
            if cfg.castling:
                _castling_moves(pos, sq, add)
        elif kind == "Q":
            slides(KING_DIRS)
        elif kind == "R":
            slides(ORTH)
        elif kind == "B":
            slides(DIAG)
        elif kind in ("N", "Z"):
            steps(KNIGHT_LEAPS)
        elif kind == "W":
            steps(ORTH)
        elif kind == "C":
            steps(DIAG)
            steps(CAMEL_LEAPS)
        elif kind == "H":
            steps(ORTH)
            steps(RHINO_LEAPS)
        elif kind == "A":
            steps(ORTH)
            for df, dr in ORTH:      # the two-square leap, to an empty square only
                f, r = f0 + 2 * df, r0 + 2 * dr
                if _on_board(pos, f, r) and board[_idx(pos, f, r)] == EMPTY:
                    simple_move(sq, _idx(pos, f, r))
        elif kind == "S":
            _alseid_moves(pos, sq, add)
        elif kind == "P":
            _pawn_moves(pos, sq, add, simple_move)

        if cfg.takeovers:
            _takeover_moves(pos, sq, add)

    if cfg.swaps:
        _swap_moves(pos, add)
    return out


def _castling_moves(pos, sq, add):
    board = pos.board
    me = pos.turn
    them = opponent(me)
    r = home_rank(pos, me)
    if sq != _idx(pos, 4, r):
        return
    rights = pos.castling
    king = colored("K", me)
    rook = colored("R", me)

    def sqr(f):
        return _idx(pos, f, r)

    # King side: e -> g, rook h -> f; queen side: e -> c, rook a -> d.
    for right, rook_from, king_to, rook_to, between, passed in (
            ("K", 7, 6, 5, (5, 6), (4, 5, 6)),
            ("Q", 0, 2, 3, (1, 2, 3), (4, 3, 2))):
        if colored(right, me) in rights and board[sqr(rook_from)] == rook \
                and all(board[sqr(f)] == EMPTY for f in between) \
                and not any(is_attacked(pos, board, sqr(f), them) for f in passed):
            nb = board[:]
            nb[sqr(4)] = EMPTY
            nb[sqr(rook_from)] = EMPTY
            nb[sqr(king_to)] = king
            nb[sqr(rook_to)] = rook
            add(square_name(pos.files, sqr(4)) + square_name(pos.files, sqr(king_to)), nb, False)


def _pawn_moves(pos, sq, add, simple_move):
    board = pos.board
    me = pos.turn
    them = opponent(me)
    files = pos.files
    f0, r0 = sq % files, sq // files
    step = 1 if me == "w" else -1
    # Single step.
    r1 = r0 + step
    if _on_board(pos, f0, r1) and board[_idx(pos, f0, r1)] == EMPTY:
        simple_move(sq, _idx(pos, f0, r1))
        # Double step from the start rank, both squares empty.
        if r0 == _double_step_start_rank(pos, me):
            r2 = r0 + 2 * step
            if _on_board(pos, f0, r2) and board[_idx(pos, f0, r2)] == EMPTY:
                nb = board[:]
                nb[sq] = EMPTY
                nb[_idx(pos, f0, r2)] = board[sq]
                add(square_name(files, sq) + square_name(files, _idx(pos, f0, r2)), nb, True,
                    ep=_idx(pos, f0, r1))
    # Diagonal captures and en passant.
    for df in (-1, 1):
        f, r = f0 + df, r0 + step
        if not _on_board(pos, f, r):
            continue
        t = _idx(pos, f, r)
        if board[t] != EMPTY and color_of(board[t]) == them:
            simple_move(sq, t)
        elif board[t] == EMPTY and pos.ep == t:
            victim = _idx(pos, f, r0)
            if board[victim] == colored("P", them):
                nb = board[:]
                nb[sq] = EMPTY
                nb[t] = board[sq]
                nb[victim] = EMPTY
                add(square_name(files, sq) + square_name(files, t), nb, True)


def _alseid_moves(pos, sq, add):
    board = pos.board
    files = pos.files
    f0, r0 = sq % files, sq // files
    weak = pos.cfg.alseid == "weak"
    for df, dr in KING_DIRS:
        # The victim, found by looking from the origin in the opposite direction:
        # the first piece met is the screen, the next one beyond it the victim.
        victim = None
        seen_screen = False
        f, r = f0 - df, r0 - dr
        while _on_board(pos, f, r):
            if board[_idx(pos, f, r)] != EMPTY:
                if seen_screen:
                    victim = _idx(pos, f, r)
                    break
                seen_screen = True
            f -= df
            r -= dr
        distance = 0
        f, r = f0 + df, r0 + dr
        while _on_board(pos, f, r) and board[_idx(pos, f, r)] == EMPTY:
            distance += 1
            t = _idx(pos, f, r)
            nb = board[:]
            nb[sq] = EMPTY
            nb[t] = board[sq]
            reset = False
            kidnap = victim is not None and (not weak or distance == 1)
            if kidnap:
                nb[sq] = board[victim]
                nb[victim] = EMPTY
                reset = board[victim].upper() == "P"
            add(square_name(files, sq) + square_name(files, t), nb, reset)
            f += df
            r += dr


def _camel_jumped(df, dr):
    if abs(dr) == 3:
        return [(0, sign(dr)), (0, 2 * sign(dr))]
    return [(sign(df), 0), (2 * sign(df), 0)]


def _rhino_jumped(df, dr):
    return [(sign(df), sign(dr)), (2 * sign(df), 2 * sign(dr))]


def _knight_jumped(df, dr):
    # Path: one orthogonal step (along the long component), then one diagonal step.
    if abs(dr) == 2:
        return (0, sign(dr))
    return (sign(df), 0)


def _zebra_jumped(df, dr):
    # Path: one diagonal step, then one orthogonal step.
    return (sign(df), sign(dr))


def _takeover_moves(pos, sq, add):
    """Takeover captures (camel-rhino): the jumped enemy piece(s) change owner."""
    board = pos.board
    me = pos.turn
    them = opponent(me)
    files = pos.files
    piece = board[sq]
    kind = piece.upper()
    f0, r0 = sq % files, sq // files

    def nm(a, b):
        return square_name(files, a) + square_name(files, b)

    # Camel and Rhino take over without a neighbour; every other piece needs
    # a friendly Camel or Rhino beside it.
    if kind not in ("C", "H") and not _near_friendly_camel_or_rhino(pos, sq, me):
        return

    leapers = {
        "C": (CAMEL_LEAPS, _camel_jumped),
        "H": (RHINO_LEAPS, _rhino_jumped),
        "N": (KNIGHT_LEAPS, lambda df, dr: [_knight_jumped(df, dr)]),
        "Z": (KNIGHT_LEAPS, lambda df, dr: [_zebra_jumped(df, dr)]),
    }
    if kind in leapers:
        # All-or-nothing over the jumped square(s): every enemy piece but a
        # king among them converts, and at least one must.
        leaps, jumped_by = leapers[kind]
        for df, dr in leaps:
            f, r = f0 + df, r0 + dr
            if not _on_board(pos, f, r):
                continue
            t = _idx(pos, f, r)
            if board[t] != EMPTY and color_of(board[t]) == me:
                continue
            converts = []
            for jf, jr in jumped_by(df, dr):
                j = _idx(pos, f0 + jf, r0 + jr)       # always on the board (between sq and t)
                if _is_enemy_non_king(board[j], me):
                    converts.append(j)
            if not converts:
                continue
            nb = board[:]
            for j in converts:
                nb[j] = _convert(nb[j])
            nb[sq] = EMPTY
            nb[t] = piece
            add(nm(sq, t) + "t", nb, True)
        return

    if kind == "P":
        step = 1 if me == "w" else -1
        dirs = [(-1, step), (1, step)]
        slide = False
    elif kind == "Q":
        dirs, slide = KING_DIRS, True
    elif kind == "R":
        dirs, slide = ORTH, True
    elif kind == "B":
        dirs, slide = DIAG, True
    elif kind == "W":
        dirs, slide = ORTH, False
    elif kind == "K":
        dirs, slide = KING_DIRS, False
    else:
        return      # other kinds make no jump takeovers (Camel ferz step, Rhino wazir step)

    for df, dr in dirs:
        f, r = f0 + df, r0 + dr
        if slide:
            while _on_board(pos, f, r) and board[_idx(pos, f, r)] == EMPTY:
                f += df
                r += dr
        if not _on_board(pos, f, r):
            continue
        j = _idx(pos, f, r)
        if not _is_enemy_non_king(board[j], me):
            continue
        lf, lr = f + df, r + dr
        if not _on_board(pos, lf, lr):
            continue
        t = _idx(pos, lf, lr)
        if board[t] != EMPTY:
            continue
        if is_attacked(pos, board, t, them):          # landing square defended
            continue
        if kind == "K" and is_attacked(pos, board, j, them):   # jumped piece defended
            continue
        for letter in _promotion_letters(pos, piece, sq, t):
            nb = board[:]
            nb[j] = _convert(nb[j])
            nb[sq] = EMPTY
            nb[t] = piece if letter is None else colored(letter, me)
            add(nm(sq, t) + (letter or ""), nb, True)


def _swap_moves(pos, add):
    board = pos.board
    me = pos.turn
    them = opponent(me)
    files = pos.files
    for a in range(files * pos.ranks):
        pa = board[a]
        if pa == EMPTY or color_of(pa) != me:
            continue
        fa, ra = a % files, a // files
        for df, dr in KING_DIRS:
            f, r = fa + df, ra + dr
            if not _on_board(pos, f, r):
                continue
            b = _idx(pos, f, r)
            if b <= a:
                continue            # each pair once, named from the lower square
            pb = board[b]
            if pb == EMPTY or color_of(pb) != me:
                continue
            ka, kb = pa.upper(), pb.upper()
            if (ka, kb) in (("W", "W"), ("P", "P")):
                continue
            if ka == "K" and is_attacked(pos, board, b, them):
                continue
            if kb == "K" and is_attacked(pos, board, a, them):
                continue
            reset = ka == "P" or kb == "P"
            options_a = _promotion_letters(pos, pa, a, b)   # piece from a arriving on b
            options_b = _promotion_letters(pos, pb, b, a)   # piece from b arriving on a
            for la in options_a:
                for lb in options_b:
                    nb = board[:]
                    nb[b] = pa if la is None else colored(la, me)
                    nb[a] = pb if lb is None else colored(lb, me)
                    suffix = (la or "") + (lb or "")
                    add(square_name(files, a) + square_name(files, b) + suffix, nb, reset)
