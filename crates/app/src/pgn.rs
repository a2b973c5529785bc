//! Reading PGN of every variant a front end knows: the one PGN reader of
//! the server (ReadPgn, AnnotateGame) and the CLI (`pgn`, `annotate`).
//!
//! A game's `Variant` tag may name a compiled variant (in any of the
//! spellings [`menagerie_notation::pgn`] reads) or a variant defined as
//! data, built in or loaded ([`Variants::load`]); a game without the tag
//! is orthodox chess. A tag naming no variant is an error that lists every
//! known name and suggests the closest ([`Variants::suggest`]).
//!
//! ```
//! use menagerie_app::Variants;
//! use menagerie_notation::pgn::{AnyPgnGame, ReadOptions};
//! let variants = Variants::builtin();
//! let games = variants.read_pgn("[Variant \"makruk\"]\n\n1. e4 d5 *\n", ReadOptions::default())?;
//! assert!(matches!(&games[0], AnyPgnGame::Data(g) if g.variant.name == "makruk"));
//! let e = variants.read_pgn("[Variant \"makruck\"]\n\n*\n", ReadOptions::default()).unwrap_err();
//! assert!(e.to_string().contains("did you mean 'makruk'?"), "{e}");
//! # Ok::<(), menagerie_notation::pgn::PgnError>(())
//! ```

use crate::Variants;
use menagerie_notation::pgn::{AnyPgnGame, PgnError, PgnErrorKind, PgnReader, ReadOptions};
use std::io::BufRead;

/// The games of a PGN input, read one at a time ([`Variants::pgn_reader`]):
/// an [`Iterator`] of results that goes on with the next game after a bad one.
pub struct PgnGames<R> {
    reader: PgnReader<R>,
    variants: Variants,
}

impl<R: BufRead> Iterator for PgnGames<R> {
    type Item = Result<AnyPgnGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        let game = self.reader.read_any_game()?;
        Some(game.map_err(|e| self.variants.explain(e)))
    }
}

impl Variants {
    /// A reader of the PGN games of `input`, of every variant these
    /// variants hold (see the [module docs](crate::pgn)).
    pub fn pgn_reader<R: BufRead>(&self, input: R, options: ReadOptions) -> PgnGames<R> {
        let variants = self.clone();
        let lookup = move |tag: Option<&str>| tag.and_then(|name| variants.data_def(name.trim()));
        PgnGames { reader: PgnReader::with_data(input, options, lookup), variants: self.clone() }
    }

    /// Every game of `text` ([`Variants::pgn_reader`]); the first bad game
    /// is the error.
    pub fn read_pgn(&self, text: &str, options: ReadOptions) -> Result<Vec<AnyPgnGame>, PgnError> {
        self.pgn_reader(text.as_bytes(), options).collect()
    }

    /// `e` with an unknown variant's list of names made whole (the data
    /// variants named) and the closest name suggested.
    fn explain(&self, mut e: PgnError) -> PgnError {
        if let PgnErrorKind::UnknownVariant { name, known, suggestion } = &mut *e.kind {
            *known = format!("{}; chess is also Standard", self.names());
            *suggestion = self.suggest(name);
        }
        e
    }
}
