//! The piece artwork: one simple vector figure per [`PieceKind`], drawn in a
//! 100x100 box standing on a common plinth.
//!
//! The figures are original to Menagerie (drawn for this crate, not traced
//! or copied from any other piece set) and are licensed like the rest of
//! the repository, MIT OR Apache-2.0. The fairy pieces also carry their FEN
//! letter on the plinth, so they stay recognisable at small sizes.

use menagerie_pieces::{Color, Piece, PieceKind};
use std::fmt::Write as _;

/// Fill and outline of White's pieces: light body, dark lines.
const WHITE_FILL: &str = "#f7f4ec";
const WHITE_LINE: &str = "#1d1d1d";
/// Fill and outline of Black's pieces: dark body, light lines.
const BLACK_FILL: &str = "#262422";
const BLACK_LINE: &str = "#eeeae0";

/// The plinth every figure stands on.
const PLINTH: &str = "M22 90 H78 V82 Q78 75 70 75 H30 Q22 75 22 82 Z";

/// The body of each figure: `(shapes filled with the body colour, details
/// drawn with the line colour only)`.
fn figure(kind: PieceKind) -> (&'static [&'static str], &'static [&'static str]) {
    match kind {
        PieceKind::Pawn => (
            &[
                r#"<path d="M36 75 Q37 54 45 46 H55 Q63 54 64 75 Z"/>"#,
                r#"<path d="M39 47 H61 V41 H39 Z"/>"#,
                r#"<circle cx="50" cy="30" r="12"/>"#,
            ],
            &[],
        ),
        PieceKind::Rook => (
            &[
                r#"<path d="M29 75 L33 42 H67 L71 75 Z"/>"#,
                r#"<path d="M26 42 V19 H36 V27 H45 V19 H55 V27 H64 V19 H74 V42 Z"/>"#,
            ],
            &[r#"<path d="M33 50 H67 M31 66 H69" fill="none"/>"#],
        ),
        PieceKind::Bishop => (
            &[
                r#"<path d="M37 64 H63 L66 75 H34 Z"/>"#,
                r#"<path d="M50 20 C67 31 69 51 61 64 H39 C31 51 33 31 50 20 Z"/>"#,
                r#"<circle cx="50" cy="14" r="6"/>"#,
            ],
            &[r#"<path d="M49 32 L58 46 M43 56 H57" fill="none"/>"#],
        ),
        PieceKind::Knight => (
            &[
                r#"<path d="M31 75 C30 62 37 55 45 48 C38 47 31 52 24 50 C19 46 21 39 28 35 C35 29 40 24 45 20 L47 11 L54 19 C68 21 77 37 74 75 Z"/>"#,
            ],
            &[r#"<circle cx="43" cy="30" r="3"/>"#, r#"<path d="M56 24 C64 34 67 50 66 70" fill="none"/>"#],
        ),
        PieceKind::Queen => (
            &[
                r#"<path d="M29 75 L22 35 L34 53 L36 25 L44 50 L50 20 L56 50 L64 25 L66 53 L78 35 L71 75 Z"/>"#,
                r#"<circle cx="22" cy="32" r="5"/>"#,
                r#"<circle cx="36" cy="22" r="5"/>"#,
                r#"<circle cx="50" cy="16" r="5"/>"#,
                r#"<circle cx="64" cy="22" r="5"/>"#,
                r#"<circle cx="78" cy="32" r="5"/>"#,
            ],
            &[r#"<path d="M32 65 H68" fill="none"/>"#],
        ),
        PieceKind::King => (
            &[
                r#"<path d="M31 75 C23 58 29 44 40 42 C45 41 48 45 50 49 C52 45 55 41 60 42 C71 44 77 58 69 75 Z"/>"#,
                r#"<path d="M46 10 H54 V19 H62 V27 H54 V42 H46 V27 H38 V19 H46 Z"/>"#,
            ],
            &[r#"<path d="M33 63 H67" fill="none"/>"#],
        ),
        // A llama-like head on a long neck, ears up, looking left.
        PieceKind::Alpaca => (
            &[
                r#"<path d="M32 75 L35 47 C35 41 33 38 29 37 L21 37 C15 36 14 30 19 26 L31 18 L32 7 L38 15 L43 7 L46 18 C52 24 54 34 54 44 C65 46 73 54 71 75 Z"/>"#,
            ],
            &[
                r#"<circle cx="32" cy="27" r="2.5"/>"#,
                r#"<path d="M44 52 C47 58 47 64 45 70 M57 54 C60 60 60 66 58 72" fill="none"/>"#,
            ],
        ),
        // A grove nymph: a gowned figure crowned with two leaves.
        PieceKind::Alseid => (
            &[
                r#"<path d="M33 75 C35 59 41 49 46 43 H54 C59 49 65 59 67 75 Z"/>"#,
                r#"<circle cx="50" cy="33" r="9"/>"#,
                r#"<path d="M42 27 C32 24 27 15 29 7 C38 11 43 18 42 27 Z"/>"#,
                r#"<path d="M58 27 C68 24 73 15 71 7 C62 11 57 18 58 27 Z"/>"#,
            ],
            &[r#"<path d="M50 47 V72 M42 60 C46 58 54 58 58 60" fill="none"/>"#],
        ),
        // A two-humped camel seen from the side, head to the right.
        PieceKind::Camel => (
            &[
                r#"<path d="M20 75 L22 55.8 C19 46.2 24 39 30 41.4 C32 28.2 41 25.8 43 39 C46 27 55 27 57 41.4 C63 41.4 66 37.8 68 30.6 L70 17.4 C71 10.2 77 9 81 13.8 L86 19.8 L81 24.6 L77 24.6 L75 43.8 C73 51 70 55.8 72 75 L64 75 L62 58.2 L34 58.2 L31 75 Z"/>"#,
            ],
            &[r#"<circle cx="76" cy="16.2" r="2.5"/>"#, r#"<path d="M24 58.2 H66" fill="none"/>"#],
        ),
        // A rhinoceros head and shoulders with a tall horn, facing right.
        PieceKind::Rhino => (
            &[
                r#"<path d="M18 75 C16 49 26 30.8 42 28.2 L50 19.1 L54 28.2 C62 29.5 69 34.7 73 42.5 L82 11.3 L84 45.1 C89 49 91 56.8 88 63.3 L74 65.9 L72 75 L60 75 L58 62 L36 62 L33 75 Z"/>"#,
            ],
            &[r#"<circle cx="66" cy="42.5" r="2.5"/>"#, r#"<path d="M75 51.6 L80 49" fill="none"/>"#],
        ),
        // A horse-like head facing right, striped.
        PieceKind::Zebra => (
            &[
                r#"<path d="M69 75 C70 62 63 55 55 48 C62 47 69 52 76 50 C81 46 79 39 72 35 C65 29 60 24 55 20 L53 11 L46 19 C32 21 23 37 26 75 Z"/>"#,
            ],
            &[
                r#"<circle cx="57" cy="30" r="3"/>"#,
                r#"<path d="M30 40 L44 44 M28 50 L46 54 M27 60 L50 63 M28 69 L58 71 M38 28 L48 35" fill="none"/>"#,
            ],
        ),
        // A vizier: a wide turban with a jewel and a plume, over a robe.
        PieceKind::Wazir => (
            &[
                r#"<path d="M30 75 C30 64 38 58 44 56 H56 C62 58 70 64 70 75 Z"/>"#,
                r#"<path d="M52 30 C56 18 64 12 72 9 C68 18 62 26 58 32 Z"/>"#,
                r#"<path d="M23 43 C23 24 77 24 77 43 C77 57 23 57 23 43 Z"/>"#,
            ],
            &[r#"<circle cx="50" cy="38" r="4.5"/>"#, r#"<path d="M25 45 C40 52 60 52 75 45" fill="none"/>"#],
        ),
    }
}

/// True for the kinds that carry their letter on the plinth.
fn lettered(kind: PieceKind) -> bool {
    !matches!(
        kind,
        PieceKind::Pawn | PieceKind::Knight | PieceKind::Bishop | PieceKind::Rook | PieceKind::Queen | PieceKind::King
    )
}

/// Appends `piece` drawn with its 100x100 box's top-left corner at `(x, y)`
/// and scaled by `scale`.
pub(crate) fn draw(out: &mut String, piece: Piece, x: f64, y: f64, scale: f64) {
    let (fill, line) = match piece.color {
        Color::White => (WHITE_FILL, WHITE_LINE),
        Color::Black => (BLACK_FILL, BLACK_LINE),
    };
    let (bodies, details) = figure(piece.kind);
    let transform = transform(x, y, scale);
    let _ = write!(
        out,
        r#"<g class="piece {color}-{name}" transform="{transform}" fill="{fill}" stroke="{line}" stroke-width="3" stroke-linejoin="round" stroke-linecap="round">"#,
        color = piece.color.name().to_ascii_lowercase(),
        name = piece.kind.name().to_ascii_lowercase(),
    );
    let _ = write!(out, r#"<path d="{PLINTH}"/>"#);
    for body in bodies {
        out.push_str(body);
    }
    if !details.is_empty() {
        let _ = write!(out, r#"<g fill="{line}">"#);
        for detail in details {
            out.push_str(detail);
        }
        out.push_str("</g>");
    }
    if lettered(piece.kind) {
        let _ = write!(
            out,
            r#"<text x="50" y="88" font-family="sans-serif" font-size="12" font-weight="bold" text-anchor="middle" fill="{line}" stroke="none">{}</text>"#,
            piece.kind.letter()
        );
    }
    out.push_str("</g>");
}

/// Appends a piece without a figure: its letter in a circle, in the
/// colours of `color`'s pieces, with its 100x100 box's top-left corner at
/// `(x, y)`, scaled by `scale`.
pub(crate) fn draw_letter(out: &mut String, color: Color, letter: char, x: f64, y: f64, scale: f64) {
    let (fill, line) = match color {
        Color::White => (WHITE_FILL, WHITE_LINE),
        Color::Black => (BLACK_FILL, BLACK_LINE),
    };
    let side = color.name().to_ascii_lowercase();
    let transform = transform(x, y, scale);
    let _ = write!(
        out,
        r#"<g class="piece {side}-letter-{lower}" transform="{transform}" fill="{fill}" stroke="{line}" stroke-width="3"><circle cx="50" cy="50" r="38"/><text x="50" y="66" font-family="sans-serif" font-size="46" font-weight="bold" text-anchor="middle" fill="{line}" stroke="none">{letter}</text></g>"#,
        lower = letter.to_ascii_lowercase(),
    );
}

/// The SVG transform placing a 100x100 piece box at `(x, y)`, scaled by `scale`.
fn transform(x: f64, y: f64, scale: f64) -> String {
    if scale == 1.0 {
        format!("translate({} {})", crate::num(x), crate::num(y))
    } else {
        format!("translate({} {}) scale({})", crate::num(x), crate::num(y), crate::num(scale))
    }
}
