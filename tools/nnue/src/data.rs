//! The text data format: `<FEN> | <score> | <result>`.

use menagerie_variants::VariantId;
use std::fs::{File, OpenOptions};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The game and the data files a tool reads (`--variant`, `--data`).
#[derive(clap::Args, Debug)]
pub struct DataArgs {
    /// Variant of the positions (`chess`, `alpaca`, ...).
    #[arg(long, default_value = "chess", value_parser = variant_arg)]
    pub variant: VariantId,
    /// Data files (`<FEN> | <score> | <result>` lines, as
    /// `menagerie-datagen` writes them); repeatable.
    #[arg(long, required = true)]
    pub data: Vec<PathBuf>,
}

/// What a tool reads and the file it writes (`--variant`, `--data`,
/// `--out`): the labeller appends re-scored records to `--out`, the trainer
/// writes its network there.
#[derive(clap::Args, Debug)]
pub struct DataJob {
    /// The game and the data files read.
    #[command(flatten)]
    pub input: DataArgs,
    /// The file to write: `menagerie-label` appends the re-scored records
    /// to it, `menagerie-train` writes the quantised network there.
    #[arg(long)]
    pub out: PathBuf,
}

/// Reads a `--variant` argument: a compiled game's name, test-only games
/// included.
pub fn variant_arg(name: &str) -> Result<VariantId, String> {
    VariantId::from_name_including_tests(name).ok_or_else(|| format!("unknown variant `{name}`"))
}

/// Opens the data file `path` for appending records (creating it if needed).
pub fn append_to(path: &Path) -> std::io::Result<BufWriter<File>> {
    Ok(BufWriter::new(OpenOptions::new().create(true).append(true).open(path)?))
}

/// One training position.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The position's FEN.
    pub fen: String,
    /// The search's score in centipawns, White's point of view.
    pub score: i32,
    /// The game's result for White: 1.0, 0.5 or 0.0.
    pub result: f32,
}

/// A line that is not a record.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("line {line}: {reason}")]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

impl Record {
    /// The record as one line (no newline).
    pub fn to_line(&self) -> String {
        let result = if self.result >= 0.75 {
            "1.0"
        } else if self.result <= 0.25 {
            "0.0"
        } else {
            "0.5"
        };
        format!("{} | {} | {}", self.fen, self.score, result)
    }

    /// Parses one line (`line` is its 1-based number, for the error).
    pub fn parse(text: &str, line: usize) -> Result<Record, ParseError> {
        let err = |reason: &str| ParseError { line, reason: reason.to_string() };
        let mut parts = text.split('|').map(str::trim);
        let (Some(fen), Some(score), Some(result), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(err("expected `<FEN> | <score> | <result>`"));
        };
        if fen.is_empty() {
            return Err(err("empty FEN"));
        }
        let score = score.parse::<i32>().map_err(|_| err("the score is not an integer"))?;
        let result = match result {
            "1.0" | "1" => 1.0,
            "0.5" => 0.5,
            "0.0" | "0" => 0.0,
            _ => return Err(err("the result is not 1.0, 0.5 or 0.0")),
        };
        Ok(Record { fen: fen.to_string(), score, result })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let r = Record { fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(), score: -35, result: 0.5 };
        assert_eq!(Record::parse(&r.to_line(), 1), Ok(r));
        assert!(Record::parse("fen | x | 1.0", 3).is_err());
        assert!(Record::parse("fen | 1 | 2.0", 3).is_err());
        assert!(Record::parse("fen | 1", 3).is_err());
        assert!(Record::parse(" | 1 | 1.0", 3).is_err());
    }
}
