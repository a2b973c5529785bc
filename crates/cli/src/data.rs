//! Commands on variants defined as data (the built-in `variants.ini` and
//! `--variants FILE`): analyze, on this machine.

use crate::{Command, PositionArgs};
use anyhow::{Result, anyhow, bail};
use menagerie_app::{DataGame, PositionRequest};
use std::io::Write;
use std::process::ExitCode;

/// The game of the command line (start and moves) in a variant defined as data.
pub(crate) fn game(a: &PositionArgs) -> Result<DataGame> {
    let moves = a.move_list();
    let request = PositionRequest::new(&a.variant, a.fen.as_deref().unwrap_or(""), &moves);
    Ok(crate::local::catalogue().data_game(&request)?)
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
            let g = game(&pos)?;
            if let Some(o) = g.outcome() {
                bail!("the game is over: {o}");
            }
            let (options, limits) = crate::local::analysis_setup(depth, nodes, movetime, multipv, threads)?;
            let mut engine = menagerie_search::Engine::new(options);
            engine
                .set_data_position(g.start().clone(), g.moves())
                .map_err(|e| anyhow!("moves[{}]: illegal", e.index))?;
            let p = g.current().clone();
            let (tx, rx) = std::sync::mpsc::channel();
            let handle = engine.go_data(limits, move |i| {
                let _ = tx.send(i);
            });
            let line = |pv: &[menagerie_app::DataMove]| {
                let mut q = p.clone();
                let mut texts = (Vec::new(), Vec::new());
                for &m in pv {
                    texts.0.push(q.move_text(m));
                    texts.1.push(q.san(m));
                    q = q.play(m);
                }
                texts
            };
            crate::local::write_analysis(rx, handle, line, out)?;
        }
        Command::Epd { .. } => bail!("suites are verified by `epd` for every variant, not here"),
    }
    Ok(ExitCode::SUCCESS)
}
