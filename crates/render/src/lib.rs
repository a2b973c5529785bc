//! Board pictures: an SVG document of any position of any Menagerie variant
//! (8x8 and the 10x10 Camel and Rhino board), and of the variants defined
//! as data ([`render_data`]: any board up to 12x10).
//!
//! A picture shows the board with file and rank coordinates, either side at
//! the bottom, the last move's squares, the king in check, any number of
//! coloured arrows and highlighted squares, and — in the gating variants
//! (`alpaca*`, `alseid*`, and S-chess defined as data) — the reserve pieces
//! beside the board: each side's reserve in a strip on its own side, a piece
//! still in hand at the strip's left, a piece placed on a gate file above (or
//! below) that file with a small triangle pointing at the board, and `?`
//! while the prelude choice is pending.
//!
//! ```
//! use menagerie_render::{BoardRequest, render_request};
//! let svg = render_request(&BoardRequest {
//!     variant: "chess",
//!     moves: &["e4", "e5", "Qh5"],
//!     arrows: &["h5f7:red"],
//!     highlights: &["f7"],
//!     ..BoardRequest::default()
//! })?;
//! assert!(svg.starts_with("<svg"));
//! # Ok::<(), menagerie_render::RenderError>(())
//! ```
//!
//! The output is deterministic: the same position and options give the same
//! bytes. Layout, in SVG user units (the `viewBox`): squares are 100 units,
//! the board has a 36-unit frame holding the coordinates, and a gating
//! variant adds a 90-unit reserve strip above and below the board. Every
//! square is a `<rect id="sq-e4" class="square light|dark">`, so tools can
//! find a square's place in the picture; the picture is `size` pixels wide.
//!
//! The piece artwork (module `pieces`) is original to Menagerie, drawn for
//! this crate, and licensed like the rest of the repository
//! (MIT OR Apache-2.0). In a variant defined as data the orthodox pieces
//! (the `pawn`, `knight`, `bishop`, `rook`, `queen` and `king` of its
//! definition) get their figures; every other piece is drawn as its FEN
//! letter in a circle (`<g class="piece white-letter-a">`).

mod pieces;

use menagerie_geometry::{File, Square};
use menagerie_notation::{MoveError, fen, parse_move};
use menagerie_pieces::{Color, Piece, PieceKind};
use menagerie_rules::PieceInfo;
use menagerie_variants::{AnyPosition, ReserveEntry, VariantId};
use std::fmt::Write as _;
use thiserror::Error;

/// Side of a square, in SVG user units.
const SQUARE: i32 = 100;
/// Width of the frame around the board that holds the coordinates.
const MARGIN: i32 = 36;
/// Height of each reserve strip of a gating variant.
const STRIP: i32 = 90;
/// Scale of a reserve piece relative to a piece on the board.
const RESERVE_SCALE: f64 = 0.7;

/// Colour of the light squares.
pub const LIGHT_SQUARE: &str = "#eadfc8";
/// Colour of the dark squares.
pub const DARK_SQUARE: &str = "#9c7a5b";
/// Colour of the frame and reserve strips.
pub const FRAME: &str = "#2f2d2a";
/// Colour of the coordinates and reserve marks.
const FRAME_TEXT: &str = "#e9e4d8";
/// Colour of wall squares (`*` in a FEN).
pub const WALL: &str = "#4a4a4a";
/// Colour of the last move's squares (drawn at [`OVERLAY_OPACITY`]).
pub const LAST_MOVE: &str = "#d8c03c";
/// Opacity of the last-move and highlight overlays.
pub const OVERLAY_OPACITY: f64 = 0.5;
/// Opacity of arrows.
pub const ARROW_OPACITY: f64 = 0.8;
/// Colour of the glow on a king in check.
const CHECK: &str = "#e0201a";

/// Smallest and largest picture width in pixels.
pub const SIZE_RANGE: std::ops::RangeInclusive<u32> = 16..=8192;
/// Picture width in pixels when none is given.
pub const DEFAULT_SIZE: u32 = 480;

/// The named colours accepted for arrows and highlights (any `#rgb` or
/// `#rrggbb` is accepted too).
pub const NAMED_COLORS: &[(&str, &str)] = &[
    ("green", "#3a9a3a"),
    ("red", "#d2352b"),
    ("blue", "#2f6fd0"),
    ("yellow", "#e6c21e"),
    ("orange", "#e8862a"),
    ("purple", "#8a4fc0"),
    ("black", "#000000"),
    ("white", "#ffffff"),
];
/// Colour of an arrow without one.
pub const DEFAULT_ARROW_COLOR: &str = "green";
/// Colour of a highlighted square without one.
pub const DEFAULT_HIGHLIGHT_COLOR: &str = "blue";

/// The longest user text quoted whole in an error.
const QUOTE_MAX: usize = 64;

/// Why a picture could not be made.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum RenderError {
    /// No variant has this name.
    #[error("unknown variant '{0}' (known: {names})", names = VariantId::names())]
    UnknownVariant(String),
    /// The FEN does not parse or is not a position of the variant.
    #[error("bad FEN: {0}")]
    Fen(#[from] fen::FenError),
    /// A move of the move list (numbered from 1) is not a move, or is not
    /// legal where it is played.
    #[error("move {index}: {source}")]
    Move {
        /// 1-based place in the move list.
        index: usize,
        /// Why the move was not accepted.
        source: MoveError,
    },
    /// A square name that is not on the board.
    #[error("'{text}' is not a square of the {files}x{ranks} board")]
    Square {
        /// The text given.
        text: String,
        /// Board width.
        files: u8,
        /// Board height.
        ranks: u8,
    },
    /// An arrow that is not `FROMTO` or `FROMTO:COLOUR`.
    #[error("arrow '{text}': {reason}")]
    Arrow {
        /// The text given.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// A colour that is neither a known name nor `#rgb`/`#rrggbb`.
    #[error("colour '{0}' is not one of {names} or #rgb/#rrggbb", names = color_names())]
    Color(String),
    /// A picture width outside [`SIZE_RANGE`].
    #[error("size {0} is out of range: a picture is 16 to 8192 pixels wide")]
    Size(u32),
}

impl RenderError {
    /// True when a move of the move list is well-formed but not legal where
    /// it is played (a precondition failure rather than bad input).
    pub fn is_illegal_move(&self) -> bool {
        matches!(self, RenderError::Move { source: MoveError::Illegal { .. }, .. })
    }
}

fn color_names() -> String {
    NAMED_COLORS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// `text`, or its first [`QUOTE_MAX`] characters and `…` if it is longer.
fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// A validated colour, kept as `#rrggbb`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SvgColor(String);

impl SvgColor {
    /// Reads a colour: a name of [`NAMED_COLORS`] (any case), `#rgb` or
    /// `#rrggbb`.
    pub fn parse(text: &str) -> Result<SvgColor, RenderError> {
        let t = text.trim();
        if let Some((_, hex)) = NAMED_COLORS.iter().find(|(n, _)| n.eq_ignore_ascii_case(t)) {
            return Ok(SvgColor((*hex).to_string()));
        }
        let digits = t.strip_prefix('#').filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()));
        match digits {
            Some(d) if d.len() == 6 => Ok(SvgColor(format!("#{}", d.to_ascii_lowercase()))),
            Some(d) if d.len() == 3 => {
                Ok(SvgColor(d.to_ascii_lowercase().chars().fold(String::from("#"), |mut s, c| {
                    s.push(c);
                    s.push(c);
                    s
                })))
            }
            _ => Err(RenderError::Color(quote(t))),
        }
    }
    /// The colour as `#rrggbb`.
    pub fn hex(&self) -> &str {
        &self.0
    }
}

/// An arrow from one square to another (to the same square: a ring).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Arrow {
    /// Where the arrow starts.
    pub from: Square,
    /// Where its head points.
    pub to: Square,
    /// Its colour.
    pub color: SvgColor,
}

impl Arrow {
    /// Reads `e2e4` or `e2e4:red` (`a10j10:#ff8800` on 10x10) for a `files`
    /// x `ranks` board; without a colour the arrow is [`DEFAULT_ARROW_COLOR`].
    pub fn parse_on(files: u8, ranks: u8, text: &str) -> Result<Arrow, RenderError> {
        let t = text.trim();
        let (squares, color) = split_color(t, DEFAULT_ARROW_COLOR)?;
        let bad = |reason: &str| RenderError::Arrow { text: quote(t), reason: reason.to_string() };
        // The second square starts at the second letter.
        let cut = squares
            .char_indices()
            .skip(1)
            .find(|(_, c)| c.is_ascii_alphabetic())
            .map(|(i, _)| i)
            .ok_or_else(|| bad("expected two squares, e.g. e2e4 or e2e4:red"))?;
        let square = |s: &str| parse_square(s, files, ranks).map_err(|e| bad(&e.to_string()));
        let from = square(&squares[..cut])?;
        let to = square(&squares[cut..])?;
        Ok(Arrow { from, to, color })
    }
}

/// A square drawn in a colour.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Highlight {
    /// The square.
    pub square: Square,
    /// Its colour (drawn at [`OVERLAY_OPACITY`] over the square).
    pub color: SvgColor,
}

impl Highlight {
    /// Reads `e4` or `e4:green` for a `files` x `ranks` board; without a
    /// colour the square is [`DEFAULT_HIGHLIGHT_COLOR`].
    pub fn parse_on(files: u8, ranks: u8, text: &str) -> Result<Highlight, RenderError> {
        let (square, color) = split_color(text.trim(), DEFAULT_HIGHLIGHT_COLOR)?;
        Ok(Highlight { square: parse_square(square, files, ranks)?, color })
    }
}

/// Splits `text:colour` into the text and the colour (`default` without one).
fn split_color<'a>(text: &'a str, default: &str) -> Result<(&'a str, SvgColor), RenderError> {
    match text.split_once(':') {
        Some((head, color)) => Ok((head, SvgColor::parse(color)?)),
        None => Ok((text, SvgColor::parse(default)?)),
    }
}

/// Reads a square name (`e4`, `j10`) of a `files` x `ranks` board.
pub fn parse_square(text: &str, files: u8, ranks: u8) -> Result<Square, RenderError> {
    let err = || RenderError::Square { text: quote(text), files, ranks };
    let mut chars = text.chars();
    let file = chars.next().and_then(File::from_letter).ok_or_else(err)?;
    let digits = chars.as_str();
    if digits.is_empty() || digits.len() > 2 || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err());
    }
    let rank: u8 = digits.parse().map_err(|_| err())?;
    if file.0 >= files || !(1..=ranks).contains(&rank) {
        return Err(err());
    }
    Ok(Square((rank - 1) * files + file.0))
}

/// How to draw a position.
#[derive(Clone, PartialEq, Debug)]
pub struct RenderOptions {
    /// Picture width in pixels (the height follows the board's shape).
    pub size: u32,
    /// The side at the bottom of the picture.
    pub orientation: Color,
    /// Draw file letters and rank numbers in the frame.
    pub coordinates: bool,
    /// The last move's origin and destination, shaded.
    pub last_move: Option<(Square, Square)>,
    /// Mark the king of the side to move when it is in check.
    pub check: bool,
    /// Arrows, drawn over the pieces in order.
    pub arrows: Vec<Arrow>,
    /// Highlighted squares, drawn under the pieces in order.
    pub highlights: Vec<Highlight>,
}

impl Default for RenderOptions {
    fn default() -> RenderOptions {
        RenderOptions {
            size: DEFAULT_SIZE,
            orientation: Color::White,
            coordinates: true,
            last_move: None,
            check: true,
            arrows: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

/// The squares a move shades as the last move (none for prelude actions).
///
/// A move of a variant defined as data: its castling goes to its rook's
/// square.
pub fn last_move_squares(m: impl Into<menagerie_game::Move>) -> Option<(Square, Square)> {
    let m = m.into();
    if let Some(m) = m.compiled() {
        return (!m.is_prelude()).then_some((m.from, m.to));
    }
    m.data().filter(|m| !m.is_prelude()).map(|m| (Square(m.from_square()), Square(m.to_square())))
}

/// The picture of a position of any variant (see [`render`] and
/// [`render_data`]).
pub fn render_position(pos: &menagerie_game::Position, options: &RenderOptions) -> Result<String, RenderError> {
    match (pos.compiled(), pos.data()) {
        (Some(p), _) => render(p, options),
        (_, Some(p)) => render_data(p, options),
        (None, None) => unreachable!("a position is compiled or defined as data"),
    }
}

/// A picture described in text, as the CLI and the gRPC API receive it.
#[derive(Clone, Copy, Debug)]
pub struct BoardRequest<'a> {
    /// Variant name (`chess`, `alpaca`, `camel-rhino`, …).
    pub variant: &'a str,
    /// Position in FEN; empty for the variant's start position.
    pub fen: &'a str,
    /// Moves (coordinate or SAN) played from the position; the last one is
    /// shaded as the last move.
    pub moves: &'a [&'a str],
    /// Arrows as `e2e4` or `e2e4:red`.
    pub arrows: &'a [&'a str],
    /// Highlighted squares as `e4` or `e4:green`.
    pub highlights: &'a [&'a str],
    /// Black at the bottom.
    pub flip: bool,
    /// Picture width in pixels.
    pub size: u32,
    /// Draw the coordinates.
    pub coordinates: bool,
}

impl Default for BoardRequest<'_> {
    fn default() -> Self {
        BoardRequest {
            variant: "chess",
            fen: "",
            moves: &[],
            arrows: &[],
            highlights: &[],
            flip: false,
            size: DEFAULT_SIZE,
            coordinates: true,
        }
    }
}

/// A drawing option of a [`BoardRequest`] that does not fit the board, with
/// the field at fault named as the request names it (`arrows[0]`,
/// `highlights[2]`, `size`).
#[derive(Clone, PartialEq, Eq, Debug, Error)]
#[error("{error}")]
pub struct OptionError {
    /// The field at fault, with its 0-based index in a list.
    pub field: String,
    /// What is wrong with it.
    pub error: RenderError,
}

/// Reads each text of the request's field `list` with `parse`; an error
/// names the field and the text's index (`arrows[1]`).
fn parse_list<T>(
    list: &str,
    texts: &[&str],
    parse: impl Fn(&str) -> Result<T, RenderError>,
) -> Result<Vec<T>, OptionError> {
    let at = |i: usize| move |error| OptionError { field: format!("{list}[{i}]"), error };
    texts.iter().enumerate().map(|(i, t)| parse(t).map_err(at(i))).collect()
}

/// The drawing options of a [`BoardRequest`] for a position of either rule
/// core on a `files` x `ranks` board: its arrows, highlights, orientation,
/// size and coordinates, and `last_move` shaded. Its variant, FEN and moves
/// are not read.
pub fn request_options(
    req: &BoardRequest<'_>,
    files: u8,
    ranks: u8,
    last_move: Option<(Square, Square)>,
) -> Result<RenderOptions, OptionError> {
    let arrows = parse_list("arrows", req.arrows, |a| Arrow::parse_on(files, ranks, a))?;
    let highlights = parse_list("highlights", req.highlights, |h| Highlight::parse_on(files, ranks, h))?;
    if !SIZE_RANGE.contains(&req.size) {
        return Err(OptionError { field: "size".into(), error: RenderError::Size(req.size) });
    }
    Ok(RenderOptions {
        size: req.size,
        orientation: if req.flip { Color::Black } else { Color::White },
        coordinates: req.coordinates,
        last_move,
        check: true,
        arrows,
        highlights,
    })
}

/// Reads a [`BoardRequest`]: the variant, the position after the moves, and
/// the options (last move from the last move played).
pub fn parse_request(req: &BoardRequest<'_>) -> Result<(AnyPosition, RenderOptions), RenderError> {
    let variant =
        VariantId::from_name(req.variant.trim()).ok_or_else(|| RenderError::UnknownVariant(quote(req.variant)))?;
    let mut pos = fen::parse_or_start(variant, req.fen)?;
    let mut last_move = None;
    for (i, text) in req.moves.iter().enumerate() {
        let index = i + 1;
        let m = parse_move(&pos, text).map_err(|source| RenderError::Move { index, source })?;
        pos = pos.play(m).map_err(|e| RenderError::Move {
            index,
            source: MoveError::Illegal { mv: quote(text.trim()), reason: e.to_string() },
        })?;
        last_move = last_move_squares(m);
    }
    let (files, ranks) = variant.size();
    let options = request_options(req, files, ranks, last_move).map_err(|e| e.error)?;
    Ok((pos, options))
}

/// The SVG picture a [`BoardRequest`] describes: the entry point for the
/// CLI and the gRPC API.
pub fn render_request(req: &BoardRequest<'_>) -> Result<String, RenderError> {
    let (pos, options) = parse_request(req)?;
    render(&pos, &options)
}

/// Formats a coordinate: an integer as such, otherwise with two decimals at
/// most (trailing zeros dropped), so output is the same everywhere.
pub(crate) fn num(v: f64) -> String {
    let s = format!("{:.2}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".to_string() } else { s.to_string() }
}

/// Where things go in the picture.
struct Layout {
    files: u8,
    ranks: u8,
    orientation: Color,
    /// Top-left corner of the board.
    x0: i32,
    y0: i32,
    width: i32,
    height: i32,
}

impl Layout {
    fn new(files: u8, ranks: u8, orientation: Color, strips: bool) -> Layout {
        let strip = if strips { STRIP } else { 0 };
        Layout {
            files,
            ranks,
            orientation,
            x0: MARGIN,
            y0: MARGIN + strip,
            width: 2 * MARGIN + i32::from(files) * SQUARE,
            height: 2 * MARGIN + 2 * strip + i32::from(ranks) * SQUARE,
        }
    }
    /// Column (from the left) and row (from the top) of a file and rank.
    fn cell(&self, file: u8, rank: u8) -> (i32, i32) {
        match self.orientation {
            Color::White => (i32::from(file), i32::from(self.ranks - 1 - rank)),
            Color::Black => (i32::from(self.files - 1 - file), i32::from(rank)),
        }
    }
    /// Top-left corner of a square.
    fn corner(&self, sq: Square) -> (i32, i32) {
        let (col, row) = self.cell(sq.0 % self.files, sq.0 / self.files);
        (self.x0 + col * SQUARE, self.y0 + row * SQUARE)
    }
    fn center(&self, sq: Square) -> (f64, f64) {
        let (x, y) = self.corner(sq);
        (f64::from(x + SQUARE / 2), f64::from(y + SQUARE / 2))
    }
    fn on_board(&self, sq: Square) -> bool {
        usize::from(sq.0) < usize::from(self.files) * usize::from(self.ranks)
    }
    fn name(&self, sq: Square) -> String {
        fen::square_name(sq, self.files)
    }
}

/// What a picture shows of a position, from either rule core.
struct Board {
    /// Variant name and FEN, for the picture's title.
    title: String,
    files: u8,
    ranks: u8,
    /// The pieces on the board.
    pieces: Vec<(Square, Glyph)>,
    /// Wall squares (`*` in a FEN), which no piece enters.
    walls: Vec<Square>,
    /// The square of the king in check, if the side to move is in check.
    check: Option<Square>,
    /// The reserve strips of a gating variant.
    reserve: Option<Reserve>,
}

/// The pieces beside the board of a gating variant.
struct Reserve {
    /// Each piece, and the gate file it waits on (`None` while in hand).
    entries: Vec<(Glyph, Option<File>)>,
    /// Whether the prelude choice is pending.
    pending: bool,
}

impl Reserve {
    /// The reserve of a compiled gating variant.
    fn compiled(entries: &[ReserveEntry], pending: bool) -> Reserve {
        Reserve { entries: entries.iter().map(|e| (Glyph::Figure(e.piece), e.file)).collect(), pending }
    }
}

/// How a piece is drawn.
#[derive(Clone, Copy)]
enum Glyph {
    /// A figure of the piece set.
    Figure(Piece),
    /// A piece the set has no figure for: its letter in a circle.
    Letter {
        /// The piece's colour.
        color: Color,
        /// Its upper-case FEN letter.
        letter: char,
    },
}

impl Glyph {
    /// The glyph of a piece type defined as data: the orthodox pieces'
    /// figures, the others' letters.
    fn of_data(info: &PieceInfo, color: Color) -> Glyph {
        match figure_of(&info.name) {
            Some(kind) => Glyph::Figure(Piece::new(color, kind)),
            None if info.letter.is_ascii_alphanumeric() => {
                Glyph::Letter { color, letter: info.letter.to_ascii_uppercase() }
            }
            None => Glyph::Letter { color, letter: '?' },
        }
    }

    /// The colour of the piece drawn.
    fn color(self) -> Color {
        match self {
            Glyph::Figure(piece) => piece.color,
            Glyph::Letter { color, .. } => color,
        }
    }

    /// Draws the glyph with its 100x100 box's top-left corner at `(x, y)`,
    /// scaled by `scale`.
    fn draw(self, out: &mut String, x: f64, y: f64, scale: f64) {
        match self {
            Glyph::Figure(piece) => pieces::draw(out, piece, x, y, scale),
            Glyph::Letter { color, letter } => pieces::draw_letter(out, color, letter, x, y, scale),
        }
    }
}

/// Draws `pos` as an SVG document.
///
/// Fails only for options that do not fit: a size outside [`SIZE_RANGE`],
/// or an arrow, highlight or last-move square off the variant's board.
pub fn render(pos: &AnyPosition, options: &RenderOptions) -> Result<String, RenderError> {
    let variant = pos.variant();
    let (files, ranks) = variant.size();
    let setup = pos.to_setup();
    let strips = setup.reserve.is_some() || AnyPosition::start(variant).to_setup().reserve.is_some();
    let check = pos.is_check().then(|| {
        let king = Piece::new(pos.side_to_move(), PieceKind::King);
        let count = u16::from(files) * u16::from(ranks);
        (0..count).map(|i| Square(i as u8)).find(|&sq| pos.piece_at(sq) == Some(king))
    });
    let reserve = strips.then(|| {
        setup
            .reserve
            .as_ref()
            .map_or_else(|| Reserve::compiled(&[], false), |r| Reserve::compiled(&r.entries, r.pending))
    });
    let board = Board {
        title: format!("{} {}", variant.name(), fen::format(pos)),
        files,
        ranks,
        pieces: setup.pieces.iter().map(|&(sq, piece)| (sq, Glyph::Figure(piece))).collect(),
        walls: Vec::new(),
        check: check.flatten(),
        reserve,
    };
    draw_board(&board, options)
}

/// Draws `pos`, a position of a variant defined as data, as an SVG
/// document of its board (up to 12x10): the orthodox pieces as figures,
/// the others as their letter in a circle, and the pieces in hand of a
/// gating variant (S-chess) in the reserve strips. Fails as [`render`] does.
pub fn render_data(pos: &menagerie_rules::Position, options: &RenderOptions) -> Result<String, RenderError> {
    let def = pos.variant();
    let kinds: Vec<PieceInfo> = def.pieces().collect();
    let count = u16::from(def.files) * u16::from(def.ranks);
    let mut pieces = Vec::new();
    let mut walls = Vec::new();
    let mut check = None;
    for i in 0..count.min(u16::from(u8::MAX) + 1) {
        let Ok(index) = u8::try_from(i) else { break };
        if pos.is_wall(index) {
            walls.push(Square(index));
        }
        let Some(p) = pos.piece_on(index) else { continue };
        let Some(info) = kinds.get(usize::from(p.kind)) else { continue };
        let color = if p.white { Color::White } else { Color::Black };
        if info.royal && p.white == pos.white_to_move() && pos.in_check() {
            check = Some(Square(index));
        }
        pieces.push((Square(index), Glyph::of_data(info, color)));
    }
    // Pieces in hand (S-chess), in the order the FEN lists them; Pioneer
    // gating's reserve pieces with their gate files, as the FEN lists them.
    let reserve = (def.uses_hand() || def.pioneer_gating()).then(|| {
        let mut entries = Vec::new();
        for (white, color) in [(true, Color::White), (false, Color::Black)] {
            if let Some(info) = def.pioneer_piece().and_then(|t| kinds.get(usize::from(t))) {
                let mut gates = pos.pioneer_gates(white);
                while gates != 0 {
                    let file = (gates.trailing_zeros() % u32::from(def.files)) as u8;
                    gates &= gates - 1;
                    entries.push((Glyph::of_data(info, color), Some(File(file))));
                }
            }
            for (kind, info) in kinds.iter().enumerate().rev() {
                let Ok(kind) = u8::try_from(kind) else { continue };
                for _ in 0..pos.in_hand(white, kind) {
                    entries.push((Glyph::of_data(info, color), None));
                }
            }
        }
        Reserve { entries, pending: pos.reserve_pending() }
    });
    let board = Board {
        title: format!("{} {}", def.name, pos.fen()),
        files: def.files,
        ranks: def.ranks,
        pieces,
        walls,
        check,
        reserve,
    };
    draw_board(&board, options)
}

/// The figure of a piece type defined as data by its `variants.ini` key:
/// only the orthodox pieces have one.
fn figure_of(key: &str) -> Option<PieceKind> {
    Some(match key {
        "pawn" => PieceKind::Pawn,
        "knight" => PieceKind::Knight,
        "bishop" => PieceKind::Bishop,
        "rook" => PieceKind::Rook,
        "queen" => PieceKind::Queen,
        "king" => PieceKind::King,
        _ => return None,
    })
}

/// Draws a board as an SVG document.
fn draw_board(board: &Board, options: &RenderOptions) -> Result<String, RenderError> {
    if !SIZE_RANGE.contains(&options.size) {
        return Err(RenderError::Size(options.size));
    }
    let l = Layout::new(board.files, board.ranks, options.orientation, board.reserve.is_some());
    let off_board =
        |sq: Square| RenderError::Square { text: format!("square #{}", sq.0), files: l.files, ranks: l.ranks };
    let squares_used = options
        .arrows
        .iter()
        .flat_map(|a| [a.from, a.to])
        .chain(options.highlights.iter().map(|h| h.square))
        .chain(options.last_move.iter().flat_map(|&(a, b)| [a, b]));
    for sq in squares_used {
        if !l.on_board(sq) {
            return Err(off_board(sq));
        }
    }

    let height_px = (u64::from(options.size) * l.height as u64 + l.width as u64 / 2) / l.width as u64;
    let mut out = String::with_capacity(32 * 1024);
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{}" height="{}" viewBox="0 0 {} {}">"#,
        options.size, height_px, l.width, l.height
    );
    let _ = write!(out, "<title>{}</title>", escape(&board.title));
    let _ =
        write!(out, r#"<rect class="frame" x="0" y="0" width="{}" height="{}" fill="{FRAME}"/>"#, l.width, l.height);

    // Squares.
    out.push_str(r#"<g class="board">"#);
    for rank in 0..l.ranks {
        for file in 0..l.files {
            let sq = Square(rank * l.files + file);
            let (x, y) = l.corner(sq);
            let light = (file + rank) % 2 == 1;
            let _ = write!(
                out,
                r#"<rect id="sq-{}" class="square {}" x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{}"/>"#,
                l.name(sq),
                if light { "light" } else { "dark" },
                if light { LIGHT_SQUARE } else { DARK_SQUARE },
            );
        }
    }
    for &sq in &board.walls {
        let (x, y) = l.corner(sq);
        let _ =
            write!(out, r#"<rect class="wall" x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{WALL}"/>"#,);
    }
    out.push_str("</g>");

    // Last move, highlights, check.
    if let Some((from, to)) = options.last_move {
        for sq in [from, to] {
            overlay(&mut out, &l, sq, "last-move", LAST_MOVE);
        }
    }
    for h in &options.highlights {
        overlay(&mut out, &l, h.square, "highlight", h.color.hex());
    }
    if options.check {
        if let Some(sq) = board.check.filter(|&sq| l.on_board(sq)) {
            let (cx, cy) = l.center(sq);
            let _ = write!(
                out,
                r#"<defs><radialGradient id="check-glow"><stop offset="0" stop-color="{CHECK}" stop-opacity="1"/><stop offset="0.5" stop-color="{CHECK}" stop-opacity="0.8"/><stop offset="1" stop-color="{CHECK}" stop-opacity="0"/></radialGradient></defs><circle class="check" cx="{}" cy="{}" r="{}" fill="url(#check-glow)"/>"#,
                num(cx),
                num(cy),
                SQUARE / 2
            );
        }
    }

    if options.coordinates {
        coordinates(&mut out, &l);
    }

    // Pieces.
    out.push_str(r#"<g class="pieces">"#);
    for &(sq, glyph) in &board.pieces {
        if l.on_board(sq) {
            let (x, y) = l.corner(sq);
            glyph.draw(&mut out, f64::from(x), f64::from(y), 1.0);
        }
    }
    out.push_str("</g>");

    if let Some(r) = &board.reserve {
        reserve(&mut out, &l, r);
    }

    if !options.arrows.is_empty() {
        out.push_str(r#"<g class="arrows">"#);
        for a in &options.arrows {
            arrow(&mut out, &l, a);
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>\n");
    Ok(out)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn overlay(out: &mut String, l: &Layout, sq: Square, class: &str, color: &str) {
    let (x, y) = l.corner(sq);
    let _ = write!(
        out,
        r#"<rect class="{class}" x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{color}" fill-opacity="{}"/>"#,
        num(OVERLAY_OPACITY)
    );
}

fn coordinates(out: &mut String, l: &Layout) {
    let _ = write!(
        out,
        r#"<g class="coordinates" font-family="sans-serif" font-size="24" text-anchor="middle" fill="{FRAME_TEXT}">"#
    );
    let bottom = l.y0 + i32::from(l.ranks) * SQUARE;
    for file in 0..l.files {
        let (col, _) = l.cell(file, 0);
        let x = l.x0 + col * SQUARE + SQUARE / 2;
        let _ = write!(out, r#"<text x="{x}" y="{}">{}</text>"#, bottom + MARGIN / 2 + 8, File(file).letter());
    }
    for rank in 0..l.ranks {
        let (_, row) = l.cell(0, rank);
        let y = l.y0 + row * SQUARE + SQUARE / 2 + 8;
        let _ = write!(out, r#"<text x="{}" y="{y}">{}</text>"#, MARGIN / 2, rank + 1);
    }
    out.push_str("</g>");
}

/// Draws each side's reserve in the strip on its side of the board: each
/// piece on a light tile, a placed one under (or over) its gate file with a
/// triangle pointing at the board, the ones in hand from the left.
fn reserve(out: &mut String, l: &Layout, r: &Reserve) {
    out.push_str(r#"<g class="reserve">"#);
    let board_bottom = l.y0 + i32::from(l.ranks) * SQUARE;
    let tile = f64::from(SQUARE) * RESERVE_SCALE;
    let step = tile + 8.0;
    for color in [Color::White, Color::Black] {
        let at_bottom = color == l.orientation;
        // The strip's top edge; the gate marks sit on the edge nearer the board.
        let top = if at_bottom { board_bottom + MARGIN } else { 0 };
        let (tile_y, tip, base) = if at_bottom {
            (f64::from(top) + 16.0, top + 2, top + 12)
        } else {
            (f64::from(top + STRIP) - 16.0 - tile, top + STRIP - 2, top + STRIP - 12)
        };
        let mut in_hand = 0;
        for &(glyph, file) in r.entries.iter().filter(|(g, _)| g.color() == color) {
            let x = match file {
                Some(file) if file.0 < l.files => {
                    let (col, _) = l.cell(file.0, 0);
                    let cx = l.x0 + col * SQUARE + SQUARE / 2;
                    let _ = write!(
                        out,
                        r#"<path class="gate" d="M{} {base} L{cx} {tip} L{} {base} Z" fill="{FRAME_TEXT}"/>"#,
                        cx - 10,
                        cx + 10
                    );
                    f64::from(cx) - tile / 2.0
                }
                _ => {
                    let x = f64::from(l.x0) + f64::from(in_hand) * step;
                    in_hand += 1;
                    x
                }
            };
            let _ = write!(
                out,
                r#"<rect class="tile" x="{}" y="{}" width="{}" height="{}" rx="6" fill="{LIGHT_SQUARE}"/>"#,
                num(x),
                num(tile_y),
                num(tile),
                num(tile)
            );
            glyph.draw(out, x, tile_y, RESERVE_SCALE);
        }
        if r.pending {
            let x = f64::from(l.x0) + f64::from(in_hand) * step + 10.0;
            let _ = write!(
                out,
                r#"<text class="pending" x="{}" y="{}" font-family="sans-serif" font-size="48" font-weight="bold" fill="{FRAME_TEXT}">?</text>"#,
                num(x),
                num(tile_y + tile / 2.0 + 17.0)
            );
        }
    }
    out.push_str("</g>");
}

fn arrow(out: &mut String, l: &Layout, a: &Arrow) {
    let (x1, y1) = l.center(a.from);
    let (x2, y2) = l.center(a.to);
    let color = a.color.hex();
    let opacity = num(ARROW_OPACITY);
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1.0 {
        let _ = write!(
            out,
            r#"<circle class="arrow" cx="{}" cy="{}" r="42" fill="none" stroke="{color}" stroke-width="8" stroke-opacity="{opacity}"/>"#,
            num(x1),
            num(y1)
        );
        return;
    }
    // Unit vector along the arrow and its normal.
    let (ux, uy) = (dx / len, dy / len);
    let (nx, ny) = (-uy, ux);
    let (shaft, head_w, head_len) = (9.0, 24.0, 40.0);
    let neck = (len - head_len).max(0.0);
    let p = |along: f64, across: f64| (x1 + ux * along + nx * across, y1 + uy * along + ny * across);
    let points = [
        p(0.0, shaft),
        p(neck, shaft),
        p(neck, head_w),
        p(len, 0.0),
        p(neck, -head_w),
        p(neck, -shaft),
        p(0.0, -shaft),
    ];
    let d = points
        .iter()
        .enumerate()
        .map(|(i, (x, y))| format!("{}{} {}", if i == 0 { "M" } else { "L" }, num(*x), num(*y)))
        .collect::<Vec<_>>()
        .join(" ");
    let _ = write!(
        out,
        r#"<path class="arrow arrow-{}{}" d="{d} Z" fill="{color}" fill-opacity="{opacity}"/>"#,
        l.name(a.from),
        l.name(a.to)
    );
}

#[cfg(test)]
mod tests;
