//! Commands on variants defined as data (the built-in `variants.ini` and
//! `--variants FILE`): perft, divide, moves, validate and analyze, on this machine.

use crate::local::{check_depth, pool};
use crate::report;
use crate::ui::Progress;
use crate::{Command, PositionArgs};
use anyhow::{Result, anyhow, bail};
use menagerie_app::{DataGame, DataPosition, PositionRequest, data_perft, nps};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

/// The position of the command line in a variant defined as data.
fn position(a: &PositionArgs) -> Result<DataPosition> {
    Ok(game(a)?.current().clone())
}

/// The game of the command line (start and moves) in a variant defined as data.
pub(crate) fn game(a: &PositionArgs) -> Result<DataGame> {
    let moves = a.move_list();
    let request = PositionRequest::new(&a.variant, a.fen.as_deref().unwrap_or(""), &moves);
    Ok(crate::local::catalogue().data_game(&request)?)
}

/// Leaf count at `depth` (root moves in parallel on `pool`).
pub(crate) fn count(p: &DataPosition, depth: u32, pool: &rayon::ThreadPool, progress: &Progress) -> u64 {
    if depth == 0 {
        progress.add_nodes(1);
        return 1;
    }
    divide_rows(p, depth, pool, progress, || {}).iter().map(|r| r.1).sum()
}

/// Perft per root move (root moves in parallel on `pool`), in generation order.
fn divide_rows(
    p: &DataPosition,
    depth: u32,
    pool: &rayon::ThreadPool,
    progress: &Progress,
    root_done: impl Fn() + Sync,
) -> Vec<(String, u64)> {
    use rayon::prelude::*;
    let moves = p.legal_moves();
    pool.install(|| {
        moves
            .par_iter()
            .map(|&m| {
                let n = data_perft(&p.play(m), depth.saturating_sub(1));
                progress.add_nodes(n);
                root_done();
                (p.move_text(m), n)
            })
            .collect()
    })
}

/// Runs `command`, whose variant is defined as data.
pub(crate) fn run(command: Command, out: &mut impl Write) -> Result<ExitCode> {
    match command {
        Command::Perft { pos, threads, hash, depth, .. } => {
            check_depth(depth)?;
            if hash > 0 {
                bail!("--hash is not available for variants defined as data ('{}')", pos.variant);
            }
            let p = position(&pos)?;
            let pool = pool(threads)?;
            let t0 = Instant::now();
            let n = if depth == 0 {
                1
            } else {
                let progress = Progress::units(p.legal_moves().len() as u64, "root moves");
                let rows = divide_rows(&p, depth, &pool, &progress, || progress.inc(1));
                progress.finish();
                rows.iter().map(|r| r.1).sum()
            };
            let secs = t0.elapsed().as_secs_f64();
            report::write_perft(out, depth, n, secs, nps(n, secs))?;
        }
        Command::Divide { pos, threads, depth } => {
            check_depth(depth)?;
            if depth == 0 {
                bail!("divide needs a depth of at least 1");
            }
            let p = position(&pos)?;
            let pool = pool(threads)?;
            let progress = Progress::units(p.legal_moves().len() as u64, "root moves");
            let rows = divide_rows(&p, depth, &pool, &progress, || progress.inc(1));
            progress.finish();
            for (text, n) in &rows {
                report::write_divide_row(out, text, "", *n)?;
            }
            report::write_divide_total(out, depth, rows.iter().map(|r| r.1).sum(), rows.len())?;
        }
        Command::Validate { .. } | Command::Moves { .. } => {
            bail!("moves are listed and validated by `moves` and `validate` for every variant, not here")
        }
        Command::Analyze { pos, depth, nodes, movetime, multipv, threads } => {
            let g = game(&pos)?;
            if let Some(o) = g.outcome() {
                bail!("the game is over: {o}");
            }
            let moves: Vec<menagerie_game::Move> = g.moves().iter().map(|&m| m.into()).collect();
            let game = menagerie_game::Game::from_moves(g.start().clone().into(), &moves)
                .map_err(|(i, _)| anyhow!("moves[{i}]: illegal"))?;
            crate::local::analyze_game(&game, depth, nodes, movetime, multipv, threads, out)?;
        }
        Command::Epd { .. } => bail!("suites are verified by `epd` for every variant, not here"),
    }
    Ok(ExitCode::SUCCESS)
}
