//! FEN with Menagerie's extensions (RULES.md §0, §2.4): multi-digit empty
//! runs on 10x10 boards and the reserve bracket after the board.
//!
//! ```
//! use menagerie_notation::fen;
//! use menagerie_variants::VariantId;
//! let text = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
//! let pos = fen::parse(VariantId::Chess, text)?;
//! assert_eq!(fen::format(&pos), text);
//! # Ok::<(), menagerie_notation::fen::FenError>(())
//! ```
//!
//! Chess960 castling fields are read as X-FEN or Shredder-FEN (file letters,
//! `HAha`) and written as X-FEN by [`format`]: `KQkq` when each right's rook
//! is the outermost on its side of the king (so position #518 reads exactly
//! like the orthodox start), its file letter otherwise; [`format_shredder`]
//! writes file letters always. Orthodox variants read and write `KQkq` only.
//!
//! Four-field FENs (EPD style, no clocks) are accepted with clocks `0 1`.
//! So are the forms XBoard writes for boards without castling: no castling
//! field (`... w - 0 1`, read as `w - - 0 1`), and neither castling nor en
//! passant (`... w 0 1`).
//! Formatting always writes six fields; formatting a parsed canonical FEN
//! gives the same string back.

use core::fmt;
use menagerie_geometry::{File, Square};
use menagerie_pieces::{Color, Piece};
use menagerie_variants::{AnyPosition, Castling, PositionError, Reserve, ReserveEntry, Setup, VariantId};
use thiserror::Error;

/// A field of a FEN.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FenField {
    /// Piece placement.
    Board,
    /// The reserve bracket.
    Reserve,
    /// Side to move.
    Side,
    /// Castling rights.
    Castling,
    /// En passant square.
    EnPassant,
    /// Halfmove clock.
    Halfmove,
    /// Fullmove number.
    Fullmove,
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenField::Board => "board",
            FenField::Reserve => "reserve",
            FenField::Side => "side to move",
            FenField::Castling => "castling",
            FenField::EnPassant => "en passant",
            FenField::Halfmove => "halfmove clock",
            FenField::Fullmove => "fullmove number",
        })
    }
}

/// Why a FEN could not be read.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum FenError {
    /// Nothing but whitespace.
    #[error("empty FEN")]
    Empty,
    /// Not 4 to 6 space-separated fields.
    #[error("FEN has {0} fields; expected 6 (board, side, castling, en passant, halfmove, fullmove) or 4")]
    FieldCount(usize),
    /// A field that does not parse.
    #[error("{field} field '{value}': {reason}")]
    Field {
        /// Which field.
        field: FenField,
        /// The text of the field (a text over 64 characters is cut to its
        /// first 64, followed by `…`).
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// A rank of the board that does not parse (ranks counted from the top, as written).
    #[error("board rank {rank} ('{value}'): {reason}")]
    Rank {
        /// The rank's number on the board (e.g. 8 for the first group on 8x8).
        rank: u32,
        /// The rank's text (cut like [`FenError::Field`]'s value).
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// Well-formed, but not a valid position of the variant.
    #[error("invalid position: {0}")]
    Position(#[from] PositionError),
}

impl FenError {
    /// The field the error is in, if it is about one field.
    pub fn field(&self) -> Option<FenField> {
        match self {
            FenError::Field { field, .. } => Some(*field),
            FenError::Rank { .. } => Some(FenField::Board),
            _ => None,
        }
    }
}

/// The longest field text quoted whole in an error.
const QUOTE_MAX: usize = 64;

/// `text`, or its first [`QUOTE_MAX`] characters and `…` if it is longer
/// (a FEN of a megabyte must not give an error message of a megabyte).
fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

fn field_err(field: FenField, value: &str, reason: impl Into<String>) -> FenError {
    FenError::Field { field, value: quote(value), reason: reason.into() }
}

/// Parses a FEN into unvalidated [`Setup`] data for `variant`'s board size.
pub fn parse_setup(variant: VariantId, fen: &str) -> Result<Setup, FenError> {
    let (files, ranks) = variant.size();
    let fields: Vec<&str> = fen.split_whitespace().collect();
    if fields.is_empty() {
        return Err(FenError::Empty);
    }
    if !(4..=6).contains(&fields.len()) {
        return Err(FenError::FieldCount(fields.len()));
    }
    let fields = with_omitted_fields(fields);
    let (board_text, reserve_text) = match fields[0].find('[') {
        Some(i) => {
            let rest = &fields[0][i..];
            if !rest.ends_with(']') {
                return Err(field_err(
                    FenField::Reserve,
                    rest,
                    "the bracket must close with ']' right after the board",
                ));
            }
            (&fields[0][..i], Some(&rest[1..rest.len() - 1]))
        }
        None => (fields[0], None),
    };
    let pieces = parse_board(board_text, files, ranks)?;
    let max = variant.rules().gating.map(|g| usize::from(g.count));
    let reserve = reserve_text.map(|r| parse_reserve(r, max, variant)).transpose()?;
    let side = match fields[1] {
        "w" => Color::White,
        "b" => Color::Black,
        s => return Err(field_err(FenField::Side, s, "must be 'w' or 'b'")),
    };
    let (castling, castling_files) = if variant.rules().chess960 {
        parse_castling_960(fields[2], &pieces, files, ranks)?
    } else {
        (parse_castling(fields[2])?, [None; 4])
    };
    let ep = match fields[3] {
        "-" => None,
        s => Some(
            parse_square(s, files, ranks)
                .ok_or_else(|| field_err(FenField::EnPassant, s, "not a square of this board"))?,
        ),
    };
    let number = |i: usize, field: FenField, default: u32| -> Result<u32, FenError> {
        match fields.get(i) {
            None => Ok(default),
            Some(s) => {
                if !s.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(field_err(field, s, "must be a non-negative integer"));
                }
                s.parse::<u32>().map_err(|_| field_err(field, s, "number too large"))
            }
        }
    };
    let halfmove = number(4, FenField::Halfmove, 0)?;
    if fields.len() == 5 {
        return Err(FenError::FieldCount(5));
    }
    let fullmove = number(5, FenField::Fullmove, 1)?;
    if fullmove == 0 {
        return Err(field_err(FenField::Fullmove, "0", "starts at 1"));
    }
    Ok(Setup { files, ranks, pieces, side, castling, castling_files, ep, halfmove, fullmove, reserve })
}

/// The fields of a FEN in the six-field layout, where a program left some
/// out: XBoard writes no castling field on a board without castling
/// (`board w - 0 1`: en passant and the clocks follow the side to move) and
/// neither castling nor en passant in variants without them (`board w 0 1`).
/// Such a FEN ends in two numbers where the castling or en passant field
/// would be; the missing fields are read as `-`. Other layouts are returned
/// unchanged.
fn with_omitted_fields(fields: Vec<&str>) -> Vec<&str> {
    let number = |s: &&str| s.bytes().all(|b| b.is_ascii_digit());
    let clocks = |from: usize| fields[from..].iter().all(number);
    match fields.len() {
        5 if clocks(3) => vec![fields[0], fields[1], "-", fields[2], fields[3], fields[4]],
        4 if clocks(2) => vec![fields[0], fields[1], "-", "-", fields[2], fields[3]],
        _ => fields,
    }
}

fn parse_square(s: &str, files: u8, ranks: u8) -> Option<Square> {
    let mut chars = s.chars();
    let f = File::from_letter(chars.next()?)?;
    let rest = chars.as_str();
    if rest.is_empty() || rest.starts_with('0') || !rest.bytes().all(|b| b.is_ascii_digit()) || rest.len() > 2 {
        return None;
    }
    let r: u8 = rest.parse().ok()?;
    (f.0 < files && (1..=ranks).contains(&r)).then(|| Square((r - 1) * files + f.0))
}

/// Names a square of a board with `files` files.
pub fn square_name(sq: Square, files: u8) -> String {
    format!("{}{}", File(sq.0 % files).letter(), sq.0 / files + 1)
}

fn parse_board(text: &str, files: u8, ranks: u8) -> Result<Vec<(Square, Piece)>, FenError> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != ranks as usize {
        return Err(field_err(FenField::Board, text, format!("has {} ranks; this board has {ranks}", rows.len())));
    }
    let mut pieces = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let rank = ranks - 1 - i as u8;
        let err = |reason: String| FenError::Rank { rank: rank as u32 + 1, value: quote(row), reason };
        let mut file: u32 = 0;
        let mut chars = row.chars().peekable();
        if row.is_empty() {
            return Err(err("empty rank".into()));
        }
        while let Some(c) = chars.next() {
            if c.is_ascii_digit() {
                let mut n = c.to_digit(10).unwrap_or(0);
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    n = n * 10 + d;
                    chars.next();
                    if n > 99 {
                        break;
                    }
                }
                // A leading zero ("08") would not format back to the same string.
                if n == 0 || c == '0' {
                    return Err(err("an empty-square count must be at least 1, without a leading zero".into()));
                }
                file += n;
            } else if let Some(p) = Piece::from_char(c) {
                if file < files as u32 {
                    pieces.push((Square(rank * files + file as u8), p));
                }
                file += 1;
            } else {
                return Err(err(format!("'{c}' is not a piece letter (KQRBNPASCHZW, lower case for Black)")));
            }
            if file > files as u32 {
                return Err(err(format!("describes more than {files} squares")));
            }
        }
        if file != files as u32 {
            return Err(err(format!("describes {file} squares; expected {files}")));
        }
    }
    Ok(pieces)
}

fn parse_castling(s: &str) -> Result<Castling, FenError> {
    if s == "-" {
        return Ok(Castling::NONE);
    }
    let mut c = Castling::NONE;
    for ch in s.chars() {
        let flag = match ch {
            'K' => Castling::WK,
            'Q' => Castling::WQ,
            'k' => Castling::BK,
            'q' => Castling::BQ,
            _ => return Err(field_err(FenField::Castling, s, format!("'{ch}' is not one of K, Q, k, q"))),
        };
        if c.has(flag) {
            return Err(field_err(FenField::Castling, s, format!("'{ch}' given twice")));
        }
        c.0 |= flag;
    }
    Ok(c)
}

/// Reads a Chess960 castling field: X-FEN (`K`/`Q`/`k`/`q` for the
/// outermost rook on that side of the king, a file letter for another one)
/// or Shredder-FEN (file letters: `HAha`), upper case for White. A file
/// letter's side is the side of the king it lies on, so the king must stand
/// on its first rank.
fn parse_castling_960(s: &str, pieces: &[(Square, Piece)], files: u8, ranks: u8) -> Result<CastlingField, FenError> {
    let mut c = Castling::NONE;
    let mut rook_files = [None; 4];
    if s == "-" {
        return Ok((c, rook_files));
    }
    for ch in s.chars() {
        let (flag, file) = match ch {
            'K' => (Castling::WK, None),
            'Q' => (Castling::WQ, None),
            'k' => (Castling::BK, None),
            'q' => (Castling::BQ, None),
            _ => {
                let color = if ch.is_ascii_uppercase() { Color::White } else { Color::Black };
                let file = File::from_letter(ch.to_ascii_lowercase()).filter(|f| f.0 < files).ok_or_else(|| {
                    field_err(FenField::Castling, s, format!("'{ch}' is not one of K, Q, k, q or a file letter"))
                })?;
                let home = if color == Color::White { 0 } else { ranks - 1 };
                let king = pieces.iter().find(|(sq, p)| {
                    *p == Piece { color, kind: menagerie_pieces::PieceKind::King } && sq.0 / files == home
                });
                let Some(&(ksq, _)) = king else {
                    let reason = format!("'{ch}': no {} king on its first rank to castle with", color.name());
                    return Err(field_err(FenField::Castling, s, reason));
                };
                let kf = ksq.0 % files;
                let flag = match (color, file.0.cmp(&kf)) {
                    (_, core::cmp::Ordering::Equal) => {
                        return Err(field_err(FenField::Castling, s, format!("'{ch}' is the king's file")));
                    }
                    (Color::White, core::cmp::Ordering::Greater) => Castling::WK,
                    (Color::White, core::cmp::Ordering::Less) => Castling::WQ,
                    (Color::Black, core::cmp::Ordering::Greater) => Castling::BK,
                    (Color::Black, core::cmp::Ordering::Less) => Castling::BQ,
                };
                (flag, Some(file.0))
            }
        };
        if c.has(flag) {
            return Err(field_err(FenField::Castling, s, format!("'{ch}' gives a right given twice")));
        }
        c.0 |= flag;
        if let Some(i) = Castling::RIGHTS.iter().position(|r| r.0 == flag) {
            rook_files[i] = file;
        }
    }
    Ok((c, rook_files))
}

/// Castling rights and their explicit rook files.
type CastlingField = (Castling, [Option<u8>; 4]);

/// Reads the text inside the reserve bracket. With `max` (the variant's
/// reserve pieces per side), a side listing more is a reserve field error
/// giving the exact number listed; entries beyond `max` are never stored.
fn parse_reserve(s: &str, max: Option<usize>, variant: VariantId) -> Result<Reserve, FenError> {
    let (body, pending) = match s.strip_suffix('?') {
        Some(b) => (b, true),
        None => (s, false),
    };
    let mut entries = Vec::new();
    // Counted wide: no number of entries wraps around to a valid count.
    let mut per_side = [0usize; 2];
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        let piece = Piece::from_char(c)
            .ok_or_else(|| field_err(FenField::Reserve, s, format!("'{c}' is not a piece letter")))?;
        let mut file = None;
        if chars.peek() == Some(&'@') {
            chars.next();
            let f = chars
                .next()
                .and_then(File::from_letter)
                .ok_or_else(|| field_err(FenField::Reserve, s, format!("'{c}@' must be followed by a file letter")))?;
            file = Some(f);
        }
        let n = &mut per_side[piece.color.idx()];
        *n += 1;
        if max.is_none_or(|max| *n <= max) {
            entries.push(ReserveEntry { piece, file });
        }
    }
    if let Some(max) = max {
        for c in Color::ALL {
            let n = per_side[c.idx()];
            if n > max {
                let reason = format!("{} has {n} reserve pieces; {variant} allows {max}", c.name());
                return Err(field_err(FenField::Reserve, s, reason));
            }
        }
    }
    // White's entries first, then Black's (RULES.md §2.4).
    if entries.windows(2).any(|w| w[0].piece.color == Color::Black && w[1].piece.color == Color::White) {
        return Err(field_err(FenField::Reserve, s, "White's entries must come before Black's"));
    }
    Ok(Reserve { pending, entries })
}

/// Writes a [`Setup`] as FEN.
pub fn format_setup(setup: &Setup) -> String {
    let mut out = String::new();
    let files = setup.files;
    let mut board = vec![None; setup.files as usize * setup.ranks as usize];
    for &(sq, p) in &setup.pieces {
        if let Some(slot) = board.get_mut(sq.idx()) {
            *slot = Some(p);
        }
    }
    for r in (0..setup.ranks).rev() {
        let mut empty = 0;
        for f in 0..files {
            match board[(r * files + f) as usize] {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(p.char());
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        if r > 0 {
            out.push('/');
        }
    }
    if let Some(res) = &setup.reserve {
        out.push('[');
        for e in &res.entries {
            out.push(e.piece.char());
            if let Some(f) = e.file {
                out.push('@');
                out.push(f.letter());
            }
        }
        if res.pending {
            out.push('?');
        }
        out.push(']');
    }
    let ep = setup.ep.map_or("-".to_string(), |s| square_name(s, files));
    out.push_str(&format!(
        " {} {} {} {} {}",
        setup.side.letter(),
        castling_field(setup),
        ep,
        setup.halfmove,
        setup.fullmove
    ));
    out
}

/// The castling field of `setup`: `KQkq` letters, or the castling rook's
/// file letter where [`Setup::castling_files`] names one (X-FEN).
fn castling_field(setup: &Setup) -> String {
    if setup.castling_files.iter().all(Option::is_none) {
        return setup.castling.fen();
    }
    let mut out = String::new();
    for (i, &(flag, color, _)) in Castling::RIGHTS.iter().enumerate() {
        if !setup.castling.has(flag) {
            continue;
        }
        let ch = match setup.castling_files[i] {
            Some(f) => File(f).letter(),
            None => ['k', 'q', 'k', 'q'][i],
        };
        out.push(if color == Color::White { ch.to_ascii_uppercase() } else { ch });
    }
    if out.is_empty() { "-".into() } else { out }
}

/// Writes a position as FEN with a Shredder-FEN castling field (the
/// castling rooks' file letters, `HAha`) — for Chess960 tools that want it;
/// [`format`] writes X-FEN (`KQkq` unless a right's rook is not the
/// outermost one on its side, which is then named by its file letter).
/// Other variants' FENs are the same in both forms.
pub fn format_shredder(pos: &AnyPosition) -> String {
    let mut setup = pos.to_setup();
    if pos.variant().rules().chess960 {
        let files = pos.variant().size().0;
        for (i, rook) in pos.castling_rooks().into_iter().enumerate() {
            setup.castling_files[i] = rook.map(|sq| sq.0 % files);
        }
    }
    format_setup(&setup)
}

/// Parses and validates a FEN as a position of `variant`.
pub fn parse(variant: VariantId, fen: &str) -> Result<AnyPosition, FenError> {
    let setup = parse_setup(variant, fen)?;
    Ok(AnyPosition::from_setup(variant, &setup)?)
}

/// Parses a FEN, or returns the start position for an empty string.
pub fn parse_or_start(variant: VariantId, fen: &str) -> Result<AnyPosition, FenError> {
    if fen.trim().is_empty() { Ok(AnyPosition::start(variant)) } else { parse(variant, fen) }
}

/// Writes a position as FEN.
pub fn format(pos: &AnyPosition) -> String {
    format_setup(&pos.to_setup())
}
