"""Board pictures: `menagerie svg` rasterised by rsvg-convert, pixels checked.

Every variant's start position and a mid-game position (with the last move
shaded, arrows and highlighted squares) are drawn, rasterised to PNG by
rsvg-convert (Debian package librsvg2-bin) and read back with pypng. The
checks use the layout documented in crates/render (squares of 100 SVG
units, a 36-unit frame, 90-unit reserve strips in the gating variants):
the light and dark square colours on empty squares, overlay colours on
highlighted and last-move squares, piece pixels on every occupied square
and none on empty ones, arrows over the squares they cross, the check glow,
and the orientation (with --flip, a1 is the top-right square).
"""
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import binary

png = pytest.importorskip("png", reason="pypng is not installed (pip install -r tests/python/requirements.txt)")

RSVG = shutil.which("rsvg-convert")
needs_rsvg = pytest.mark.skipif(
    RSVG is None, reason="rsvg-convert not found: install it (Debian/Ubuntu: apt-get install librsvg2-bin)"
)

SVG_NS = "{http://www.w3.org/2000/svg}"
SQUARE = 100
MARGIN = 36
STRIP = 90
LIGHT = (0xEA, 0xDF, 0xC8)
DARK = (0x9C, 0x7A, 0x5B)
LAST_MOVE = (0xD8, 0xC0, 0x3C)
OVERLAY = 0.5
ARROW = 0.8
NAMED = {"green": "#3a9a3a", "red": "#d2352b", "blue": "#2f6fd0", "yellow": "#e6c21e"}
TOLERANCE = 4

GATING = {"alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak"}
VARIANTS = ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino"]

# A mid-game per variant: moves, arrows (FROMTO:COLOUR over empty squares),
# highlights on empty squares, highlights on occupied squares.
MIDGAMES = {
    "chess": ("e4 e5 Nf3 Nc6 Bb5 a6", ["a3h3:red", "d6d4"], ["c4:yellow", "h4"], ["c6:red"]),
    "alpaca": ("accept A@g A@b Nf3 Nc6 e4", ["a3h3:blue"], ["d5:red", "g5"], ["g1:yellow"]),
    "alpaca2": ("accept A@bg A@bg Nf3 Nf6", ["a4h4"], ["e5:yellow"], ["b1"]),
    "alpaca-samefile": ("accept A@g A@g Nf3 Nf6 d4", ["h3a3:red"], ["e4:green"], ["d4:red"]),
    "alseid": ("accept S@g S@g Nf3 Nf6 e4 d5", ["a4a6:yellow", "h4h5"], ["c5"], ["g1:red"]),
    "alseid-weak": ("accept S@c S@c d4 d5 Bf4 Bf5", ["a3h3"], ["e5:red"], ["c1:yellow"]),
    "camel-rhino": ("i2h5 i9h6 c2d4 b9d6", ["a5j5:red", "b4b7"], ["f6:yellow", "j6"], ["h5:blue"]),
}


def hex_rgb(text):
    text = NAMED.get(text, text).lstrip("#")
    return tuple(int(text[i : i + 2], 16) for i in (0, 2, 4))


def blend(under, over, alpha):
    return tuple(round(u * (1 - alpha) + o * alpha) for u, o in zip(under, over))


def close(a, b, tolerance=TOLERANCE):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


class Picture:
    """An SVG from `menagerie svg`, its parsed tree and its raster."""

    def __init__(self, *args):
        proc = subprocess.run(
            [str(binary("menagerie")), "svg", *args], capture_output=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr.decode()
        self.svg = proc.stdout.decode()
        self.root = ET.fromstring(self.svg)  # well-formed XML
        raster = subprocess.run([RSVG, "--format=png"], input=proc.stdout, capture_output=True, timeout=120)
        assert raster.returncode == 0, raster.stderr.decode()
        width, height, rows, _ = png.Reader(bytes=raster.stdout).asRGBA8()
        self.rows = [bytes(row) for row in rows]
        assert (width, height) == (int(self.root.get("width")), int(self.root.get("height")))
        view = [float(v) for v in self.root.get("viewBox").split()]
        self.scale = width / view[2]
        self.width, self.height = width, height
        title = self.root.find(f"{SVG_NS}title").text
        self.variant, fen = title.split(" ", 1)
        self.files = self.ranks = 10 if self.variant.startswith("camel-rhino") else 8
        self.board = parse_board(fen.split()[0].split("[")[0], self.files)

    def pixel(self, x, y):
        """The colour at SVG user coordinates (x, y)."""
        px, py = int(x * self.scale), int(y * self.scale)
        row = self.rows[py]
        return tuple(row[4 * px : 4 * px + 3])

    def corner(self, square, flipped=False):
        """Top-left corner of a square in user units, from the documented layout."""
        file, rank = ord(square[0]) - ord("a"), int(square[1:]) - 1
        col, row = (self.files - 1 - file, rank) if flipped else (file, self.ranks - 1 - rank)
        top = MARGIN + (STRIP if self.variant in GATING else 0)
        return MARGIN + col * SQUARE, top + row * SQUARE

    def samples(self, square, flipped=False):
        """A grid of colours over the square's inside."""
        x0, y0 = self.corner(square, flipped)
        steps = [8 + i * 6 for i in range(15)]  # 8 .. 92
        return [self.pixel(x0 + dx, y0 + dy) for dx in steps for dy in steps]


def parse_board(text, files):
    """{square name: piece letter} of a FEN board field (ranks from the top)."""
    board, ranks = {}, text.split("/")
    for i, row in enumerate(ranks):
        rank, file, digits = len(ranks) - i, 0, ""
        for ch in row + " ":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                file += int(digits)
                digits = ""
            if ch.isalpha():
                board[f"{chr(ord('a') + file)}{rank}"] = ch
                file += 1
        assert file == files, row
    return board


def square_names(files, ranks):
    return [f"{chr(ord('a') + f)}{r + 1}" for f in range(files) for r in range(ranks)]


def base_colour(square):
    file, rank = ord(square[0]) - ord("a"), int(square[1:]) - 1
    return LIGHT if (file + rank) % 2 else DARK


def square_center(square):
    return ord(square[0]) - ord("a"), int(square[1:]) - 1


def near_arrow(square, arrows):
    """True if the square's centre is within one square of an arrow's line."""
    fx, fy = square_center(square)
    for a in arrows:
        body = a.split(":")[0]
        cut = next(i for i in range(1, len(body)) if body[i].isalpha())
        (ax, ay), (bx, by) = square_center(body[:cut]), square_center(body[cut:])
        dx, dy = bx - ax, by - ay
        t = max(0.0, min(1.0, ((fx - ax) * dx + (fy - ay) * dy) / float(dx * dx + dy * dy or 1)))
        if (fx - ax - t * dx) ** 2 + (fy - ay - t * dy) ** 2 < 0.7**2:
            return True
    return False


def check_squares(pic, expected_bg, skip=(), flipped=False):
    """Empty squares are their background colour throughout; occupied ones
    show a piece (many pixels far from the background)."""
    for name in square_names(pic.files, pic.ranks):
        if name in skip:
            continue
        bg = expected_bg(name)
        samples = pic.samples(name, flipped)
        far = sum(1 for s in samples if not close(s, bg, 28))
        if name in pic.board:
            assert far >= 20, f"{pic.variant}: no piece drawn on {name} ({pic.board[name]}), {far} piece pixels"
        else:
            off = [s for s in samples if not close(s, bg)]
            assert not off, f"{pic.variant}: empty {name} should be {bg}, has {off[:3]}"


@needs_rsvg
@pytest.mark.parametrize("variant", VARIANTS)
def test_start_position(variant):
    pic = Picture("--variant", variant, "--size", "600")
    assert pic.width == 600
    check_squares(pic, base_colour)
    # Light and dark squares where expected, e.g. on the empty middle ranks.
    assert close(pic.pixel(*[c + 50 for c in pic.corner("a4")]), LIGHT)
    assert close(pic.pixel(*[c + 50 for c in pic.corner("a5")]), DARK)
    # The frame is neither square colour; gating variants have reserve strips.
    frame = pic.pixel(5, pic.height / pic.scale / 2)
    assert not close(frame, LIGHT, 30) and not close(frame, DARK, 30)
    strips = variant in GATING
    assert pic.height == round(600 * (2 * MARGIN + pic.ranks * SQUARE + 2 * STRIP * strips) / (2 * MARGIN + pic.files * SQUARE))
    if strips:
        # The reserve pieces wait on light tiles in the strips, in hand at the left.
        for y in (STRIP / 2, pic.height / pic.scale - STRIP / 2):
            tile = [pic.pixel(MARGIN + dx, y) for dx in range(4, 66, 4)]
            assert any(close(p, LIGHT) for p in tile), f"{variant}: no reserve tile at y={y}"


@needs_rsvg
@pytest.mark.parametrize("variant", VARIANTS)
def test_midgame_with_arrows_and_highlights(variant):
    moves, arrows, empty_marks, occupied_marks = MIDGAMES[variant]
    args = ["--variant", variant, "--moves", moves, "--size", "720"]
    for a in arrows:
        args += ["--arrow", a]
    for h in empty_marks + occupied_marks:
        args += ["--highlight", h]
    pic = Picture(*args)
    # The last move, from the move list (its origin is empty now unless a
    # reserve piece was gated there).
    last = subprocess.run(
        [str(binary("menagerie")), "validate", "--variant", variant, "--moves", " ".join(moves.split()[:-1]), moves.split()[-1]],
        capture_output=True, text=True, timeout=60,
    ).stdout
    coord = next(line.split(": ")[1] for line in last.splitlines() if line.startswith("move: "))
    cut = next(i for i in range(1, len(coord)) if coord[i].isalpha())
    last_from, last_to = coord[:cut], coord[cut:cut + 3].rstrip("abcdefghijklmnopqrstuvwxyz")
    assert last_to in pic.board

    marks = {}
    for h in empty_marks + occupied_marks:
        square, _, colour = h.partition(":")
        marks[square] = hex_rgb(colour or "blue")

    def expected(name):
        bg = base_colour(name)
        if name in (last_from, last_to):
            bg = blend(bg, LAST_MOVE, OVERLAY)
        if name in marks:
            bg = blend(bg, marks[name], OVERLAY)
        return bg

    crossed = {n for n in square_names(pic.files, pic.ranks) if near_arrow(n, arrows)}
    check_squares(pic, expected, skip=crossed)
    # Highlighted empty squares and the last move's origin have their overlay colour.
    for h in empty_marks:
        square = h.partition(":")[0]
        assert square not in pic.board
        x, y = pic.corner(square)
        assert close(pic.pixel(x + 50, y + 50), expected(square)), (square, pic.pixel(x + 50, y + 50))
        assert not close(expected(square), base_colour(square), 10)
    for square in (last_from, last_to):
        x, y = pic.corner(square)
        inside = (x + 4, y + 4) if square in pic.board else (x + 50, y + 50)
        assert close(pic.pixel(*inside), expected(square)), square
    # Highlighted occupied squares: the overlay shows in the square's corner.
    for h in occupied_marks:
        square = h.partition(":")[0]
        assert square in pic.board
        x, y = pic.corner(square)
        assert close(pic.pixel(x + 4, y + 4), expected(square))
    # Arrows: the arrow's colour over its (empty) start square, 30 units
    # from the centre towards the head.
    for a in arrows:
        body, _, colour = a.partition(":")
        cut = next(i for i in range(1, len(body)) if body[i].isalpha())
        start, end = body[:cut], body[cut:]
        assert start not in pic.board, a
        (fx, fr), (tx, tr) = square_center(start), square_center(end)
        length = ((tx - fx) ** 2 + (tr - fr) ** 2) ** 0.5
        x, y = pic.corner(start)
        at = (x + 50 + 30 * (tx - fx) / length, y + 50 - 30 * (tr - fr) / length)
        want = blend(expected(start), hex_rgb(colour or "green"), ARROW)
        got = pic.pixel(*at)
        assert close(got, want), f"{variant}: arrow {a} over {start}: {got}, want {want}"


@needs_rsvg
def test_check_glow():
    pic = Picture("--moves", "f3 e5 g4 Qh4#", "--size", "872")
    x, y = pic.corner("e1")
    r, g, _ = pic.pixel(x + 20, y + 30)
    assert r - g > 60, "no red glow around the king in check"
    quiet = Picture("--moves", "f3 e5 g4 Nc6", "--size", "872")
    r, g, _ = quiet.pixel(x + 20, y + 30)
    assert r - g < 40


@needs_rsvg
@pytest.mark.parametrize("variant", ["chess", "alpaca", "camel-rhino"])
def test_flip_puts_a1_top_right(variant):
    top = STRIP if variant in GATING else 0
    files = 10 if variant == "camel-rhino" else 8
    last = f"{chr(ord('a') + files - 1)}{files}"
    for flip in (False, True):
        args = ["--variant", variant, "--moves", "", "--highlight", "a1:red", "--highlight", f"{last}:green"]
        pic = Picture(*args, *(["--flip"] if flip else []))
        # The board's top-right and bottom-left squares, from the layout alone.
        top_right = (MARGIN + (files - 1) * SQUARE, MARGIN + top)
        bottom_left = (MARGIN, MARGIN + top + (files - 1) * SQUARE)
        a1 = blend(DARK, hex_rgb("red"), OVERLAY)
        far = blend(DARK, hex_rgb("green"), OVERLAY)
        want_tr, want_bl = (a1, far) if flip else (far, a1)
        assert close(pic.pixel(top_right[0] + 4, top_right[1] + 4), want_tr), (variant, flip)
        assert close(pic.pixel(bottom_left[0] + 4, bottom_left[1] + 4), want_bl), (variant, flip)
        # And the pieces follow: every square matches the board under the flip.
        check_squares(pic, lambda n: {"a1": a1, last: far}.get(n, base_colour(n)), flipped=flip)


def test_bad_input_exits_2():
    for args in (["--variant", "nope"], ["--arrow", "e2e9"], ["--highlight", "e4:mauve"], ["--size", "0"]):
        proc = subprocess.run([str(binary("menagerie")), "svg", *args], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, args
        assert proc.stderr.startswith("error: ") and "panicked" not in proc.stderr, proc.stderr
    # An illegal move in well-formed input exits 1, as in every command.
    proc = subprocess.run([str(binary("menagerie")), "svg", "--moves", "e4 e4"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.startswith("error: ") and "illegal" in proc.stderr, proc.stderr
