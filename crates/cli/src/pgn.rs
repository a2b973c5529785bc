//! `menagerie pgn FILE`: reads a PGN file of any variant game by game and
//! checks it, prints each game's final FEN or coordinate moves, or writes
//! it back as normalised export-format PGN. Always runs on this machine,
//! with the server's reader ([`menagerie_app::pgn`]): compiled variants and
//! those defined as data, built in or loaded with `--variants`.

use anyhow::{Context, Result};
use clap::Args;
use menagerie_notation::pgn::{AnyPgnGame, ReadOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `menagerie pgn`.
#[derive(Args, Clone, Debug)]
pub(crate) struct PgnArgs {
    /// The PGN file (`-` for standard input).
    file: PathBuf,
    /// Only validate: print `N games, K bad` (bad games are named on stderr).
    #[arg(long, group = "mode")]
    check: bool,
    /// Print the FEN after each game's main line, one line per game.
    #[arg(long, group = "mode")]
    fen: bool,
    /// Print each game's main line in coordinate (UCI) form, one line per game.
    #[arg(long, group = "mode")]
    uci: bool,
    /// Also accept moves in coordinate form (g1f3, h2g4t) in the file.
    #[arg(long)]
    coordinates: bool,
}

/// What to print for each good game.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Check,
    Fen,
    Uci,
    Export,
}

/// Runs `menagerie pgn`: exit 0 when every game reads, 1 when a game is
/// bad (each named on stderr as `FILE: game N (White - Black), line L: ...`)
/// or the file holds no game; an unreadable file is an error (exit 2).
pub(crate) fn run(args: PgnArgs) -> Result<ExitCode> {
    let mode = match (args.check, args.fen, args.uci) {
        (true, _, _) => Mode::Check,
        (_, true, _) => Mode::Fen,
        (_, _, true) => Mode::Uci,
        _ => Mode::Export,
    };
    let name = args.file.display().to_string();
    let input: Box<dyn BufRead> = if name == "-" {
        Box::new(BufReader::new(std::io::stdin().lock()))
    } else {
        let file = std::fs::File::open(&args.file).with_context(|| format!("cannot open {name}"))?;
        Box::new(BufReader::new(file))
    };
    let reader = crate::local::catalogue().pgn_reader(input, ReadOptions { coordinates: args.coordinates });
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let (mut games, mut bad) = (0usize, 0usize);
    let json = crate::ui::json();
    for result in reader {
        games += 1;
        match result {
            Ok(game) if json => emit_json(&mut out, mode, games, &game)?,
            Ok(game) => emit(&mut out, mode, &game)?,
            Err(e) => {
                bad += 1;
                if json {
                    let v = serde_json::json!({"type": "bad_game", "number": games, "error": e.to_string()});
                    crate::ui::emit(&mut out, &v)?;
                }
                out.flush()?;
                eprintln!("{name}: {e}");
            }
        }
    }
    if json {
        crate::ui::emit(&mut out, &serde_json::json!({"type": "pgn", "games": games, "bad": bad}))?;
    } else if mode == Mode::Check {
        writeln!(out, "{games} games, {bad} bad")?;
    }
    out.flush()?;
    if games == 0 {
        eprintln!("{name}: no games found");
        return Ok(ExitCode::from(1));
    }
    Ok(if bad > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// A good game as a `--json` line: `{"type":"game","number":N,...}` with
/// `fen` (--fen), `moves` (--uci, coordinate moves) or `pgn` (export);
/// nothing for --check.
fn emit_json(out: &mut impl Write, mode: Mode, number: usize, game: &AnyPgnGame) -> Result<()> {
    let v = match mode {
        Mode::Check => return Ok(()),
        Mode::Fen => serde_json::json!({"type": "game", "number": number, "fen": game.final_fen()?}),
        Mode::Uci => serde_json::json!({"type": "game", "number": number, "moves": game.uci_moves()?}),
        Mode::Export => serde_json::json!({"type": "game", "number": number, "pgn": game.to_pgn()?}),
    };
    crate::ui::emit(out, &v)
}

fn emit(out: &mut impl Write, mode: Mode, game: &AnyPgnGame) -> Result<()> {
    match mode {
        Mode::Check => {}
        Mode::Fen => writeln!(out, "{}", game.final_fen()?)?,
        Mode::Uci => writeln!(out, "{}", game.uci_moves()?.join(" "))?,
        Mode::Export => write!(out, "{}", game.to_pgn()?)?,
    }
    Ok(())
}
