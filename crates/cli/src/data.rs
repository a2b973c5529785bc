//! Commands on variants defined as data (the built-in `variants.ini` and
//! `--variants FILE`): analyze, on this machine.

use crate::{Command, PositionArgs};
use anyhow::{Result, bail};
use menagerie_app::PositionRequest;
use menagerie_game::Game;
use std::io::Write;
use std::process::ExitCode;

/// The game of the command line (start and moves).
pub(crate) fn game(a: &PositionArgs) -> Result<Game> {
    let moves = a.move_list();
    let request = PositionRequest::new(&a.variant, a.fen.as_deref().unwrap_or(""), &moves);
    Ok(crate::local::catalogue().game(&request)?)
}

/// Runs `command`, whose variant is defined as data.
pub(crate) fn run(command: Command, out: &mut impl Write) -> Result<ExitCode> {
    match command {
        Command::Perft { .. } | Command::Divide { .. } => {
            bail!("perft and divide are counted by `perft` and `divide` for every variant, not here")
        }
        Command::Validate { .. } | Command::Moves { .. } => {
            bail!("moves are listed and validated by `moves` and `validate` for every variant, not here")
        }
        Command::Analyze { pos, depth, nodes, movetime, multipv, threads } => {
            let game = game(&pos)?;
            if let Some(o) = game.data().and_then(|g| g.outcome()) {
                bail!("the game is over: {o}");
            }
            crate::local::analyze_game(&game, depth, nodes, movetime, multipv, threads, out)?;
        }
        Command::Epd { .. } => bail!("suites are verified by `epd` for every variant, not here"),
    }
    Ok(ExitCode::SUCCESS)
}
