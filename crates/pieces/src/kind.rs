//! Colours, piece kinds and pieces.

use core::fmt;

/// A side.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Color {
    /// White moves first and starts on the low ranks.
    White = 0,
    /// Black.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    #[inline(always)]
    pub const fn flip(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    /// 0 for White, 1 for Black.
    #[inline(always)]
    pub const fn idx(self) -> usize {
        self as usize
    }
    /// `w` or `b`, as in FEN.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
    /// The colour with FEN letter `w` or `b`.
    pub fn from_letter(c: char) -> Option<Color> {
        match c {
            'w' => Some(Color::White),
            'b' => Some(Color::Black),
            _ => None,
        }
    }
    /// `White` or `Black`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }
}

impl core::ops::Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        self.flip()
    }
}

/// Every piece kind of the Menagerie games (RULES.md §0).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum PieceKind {
    /// `P`: orthodox pawn (double step and promotion are variant rules).
    Pawn = 0,
    /// `N`: (1,2) leaper whose path passes the orthogonal neighbour.
    Knight = 1,
    /// `B`: diagonal rider.
    Bishop = 2,
    /// `R`: orthogonal rider.
    Rook = 3,
    /// `Q`: rider in all eight directions.
    Queen = 4,
    /// `K`: one step in any direction; the royal piece.
    King = 5,
    /// `A`: Alpaca, Betza `WmD` — wazir, or a non-capturing (0,2) jump.
    Alpaca = 6,
    /// `S`: Alseid — queen moves to empty squares only, never captures.
    Alseid = 7,
    /// `C`: Camel — ferz step or (1,3) leap.
    Camel = 8,
    /// `H`: Rhino — wazir step or (2,3) leap.
    Rhino = 9,
    /// `Z`: Zebra — (1,2) leap whose path passes the diagonal neighbour.
    Zebra = 10,
    /// `W`: Wazir — one orthogonal step.
    Wazir = 11,
}

/// Number of piece kinds.
pub const KIND_COUNT: usize = 12;

impl PieceKind {
    /// All kinds, in index order.
    pub const ALL: [PieceKind; KIND_COUNT] = [
        PieceKind::Pawn,
        PieceKind::Knight,
        PieceKind::Bishop,
        PieceKind::Rook,
        PieceKind::Queen,
        PieceKind::King,
        PieceKind::Alpaca,
        PieceKind::Alseid,
        PieceKind::Camel,
        PieceKind::Rhino,
        PieceKind::Zebra,
        PieceKind::Wazir,
    ];

    /// The kind's index, 0..12.
    #[inline(always)]
    pub const fn idx(self) -> usize {
        self as usize
    }
    /// The kind with index `i`.
    #[inline]
    pub const fn from_idx(i: usize) -> Option<PieceKind> {
        if i < KIND_COUNT { Some(Self::ALL[i]) } else { None }
    }
    /// The upper-case letter of the kind (RULES.md §0).
    pub const fn letter(self) -> char {
        match self {
            PieceKind::Pawn => 'P',
            PieceKind::Knight => 'N',
            PieceKind::Bishop => 'B',
            PieceKind::Rook => 'R',
            PieceKind::Queen => 'Q',
            PieceKind::King => 'K',
            PieceKind::Alpaca => 'A',
            PieceKind::Alseid => 'S',
            PieceKind::Camel => 'C',
            PieceKind::Rhino => 'H',
            PieceKind::Zebra => 'Z',
            PieceKind::Wazir => 'W',
        }
    }
    /// The kind with this letter, in either case.
    pub fn from_letter(c: char) -> Option<PieceKind> {
        let u = c.to_ascii_uppercase();
        Self::ALL.into_iter().find(|k| k.letter() == u)
    }
    /// English name, e.g. `Alpaca`.
    pub const fn name(self) -> &'static str {
        match self {
            PieceKind::Pawn => "Pawn",
            PieceKind::Knight => "Knight",
            PieceKind::Bishop => "Bishop",
            PieceKind::Rook => "Rook",
            PieceKind::Queen => "Queen",
            PieceKind::King => "King",
            PieceKind::Alpaca => "Alpaca",
            PieceKind::Alseid => "Alseid",
            PieceKind::Camel => "Camel",
            PieceKind::Rhino => "Rhino",
            PieceKind::Zebra => "Zebra",
            PieceKind::Wazir => "Wazir",
        }
    }
    /// Nominal value in centipawns (the king has none).
    pub const fn value(self) -> i32 {
        match self {
            PieceKind::Pawn => 100,
            PieceKind::Knight => 300,
            PieceKind::Bishop => 325,
            PieceKind::Rook => 500,
            PieceKind::Queen => 900,
            PieceKind::King => 0,
            PieceKind::Alpaca => 200,
            PieceKind::Alseid => 300,
            PieceKind::Camel => 300,
            PieceKind::Rhino => 350,
            PieceKind::Zebra => 300,
            PieceKind::Wazir => 150,
        }
    }
}

impl fmt::Display for PieceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A coloured piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Owner.
    pub color: Color,
    /// Kind.
    pub kind: PieceKind,
}

impl Piece {
    /// Builds a piece.
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece { color, kind }
    }
    /// FEN letter: upper case for White, lower case for Black.
    pub const fn char(self) -> char {
        let c = self.kind.letter();
        match self.color {
            Color::White => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }
    /// The piece with this FEN letter.
    pub fn from_char(c: char) -> Option<Piece> {
        let kind = PieceKind::from_letter(c)?;
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        Some(Piece { color, kind })
    }
    /// Compact code: 0 = none, otherwise `1 + kind + 16 * color`.
    #[inline(always)]
    pub const fn code(self) -> u8 {
        1 + self.kind as u8 + 16 * self.color as u8
    }
    /// Decodes [`Piece::code`]; 0 (or an invalid code) is `None`.
    #[inline(always)]
    pub const fn from_code(c: u8) -> Option<Piece> {
        if c == 0 {
            return None;
        }
        let color = if c >= 16 { Color::Black } else { Color::White };
        match PieceKind::from_idx(((c & 15) - 1) as usize) {
            Some(kind) => Some(Piece { color, kind }),
            None => None,
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}
