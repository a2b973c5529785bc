//! What the engine commands print, the same whether they ran on this
//! machine or on replicas: text, or JSON lines with `--json`.

use crate::ui;
use anyhow::Result;
use menagerie_app::epd::{LineResult, Tally};
use std::io::Write;
use std::process::ExitCode;

/// The `--json` line of `perft`.
pub(crate) fn perft_json(depth: u32, nodes: u64, seconds: f64, nps: u64) -> serde_json::Value {
    serde_json::json!({"type": "perft", "depth": depth, "nodes": nodes, "seconds": seconds, "nps": nps})
}

/// The result of `perft`: the count alone on stdout and the timing on
/// stderr, or the `--json` line.
pub(crate) fn write_perft(out: &mut impl Write, depth: u32, nodes: u64, seconds: f64, nps: u64) -> Result<()> {
    if ui::json() {
        return ui::emit(out, &perft_json(depth, nodes, seconds, nps));
    }
    eprintln!("depth {depth} nodes {nodes} time {seconds:.3}s nps {nps}");
    writeln!(out, "{nodes}")?;
    Ok(())
}

/// One row of `divide`: a root move (coordinate and SAN) and its count.
pub(crate) fn write_divide_row(out: &mut impl Write, uci: &str, san: &str, nodes: u64) -> Result<()> {
    if ui::json() {
        return ui::emit(out, &serde_json::json!({"type": "move", "move": uci, "san": san, "nodes": nodes}));
    }
    writeln!(out, "{uci}: {nodes}")?;
    Ok(())
}

/// The closing line(s) of `divide`: a blank line and the total, or the
/// `--json` summary.
pub(crate) fn write_divide_total(out: &mut impl Write, depth: u32, nodes: u64, moves: usize) -> Result<()> {
    if ui::json() {
        let v = serde_json::json!({"type": "divide", "depth": depth, "nodes": nodes, "moves": moves});
        return ui::emit(out, &v);
    }
    writeln!(out)?;
    writeln!(out, "{nodes}")?;
    Ok(())
}

/// One row of `moves`: the move, with its SAN and the FEN after it as asked
/// (always both with `--json`).
pub(crate) fn write_move_row(
    out: &mut impl Write,
    uci: &str,
    san: &str,
    fen: &str,
    with_san: bool,
    with_fen: bool,
) -> Result<()> {
    if ui::json() {
        return ui::emit(out, &serde_json::json!({"type": "move", "uci": uci, "san": san, "fen": fen}));
    }
    let mut line = uci.to_string();
    if with_san {
        line.push(' ');
        line.push_str(san);
    }
    if with_fen {
        line.push(' ');
        line.push_str(fen);
    }
    writeln!(out, "{line}")?;
    Ok(())
}

/// The closing `--json` line of `moves` (nothing as text).
pub(crate) fn write_moves_total(out: &mut impl Write, fen: &str, count: usize) -> Result<()> {
    if ui::json() {
        return ui::emit(out, &serde_json::json!({"type": "moves", "fen": fen, "count": count}));
    }
    Ok(())
}

/// `validate` of a legal move, as text or JSON: where it leads, the game's
/// end if it ends it, and the draw the player to move may then claim
/// (empty if none).
pub(crate) fn write_legal(
    out: &mut impl Write,
    uci: &str,
    san: &str,
    fen: &str,
    outcome: Option<&str>,
    claimable_draw: &str,
) -> Result<()> {
    if ui::json() {
        let claim = (!claimable_draw.is_empty()).then_some(claimable_draw);
        let v = serde_json::json!({
            "type": "validate", "legal": true, "move": uci, "san": san, "fen": fen, "outcome": outcome,
            "claimable_draw": claim,
        });
        return ui::emit(out, &v);
    }
    writeln!(out, "legal")?;
    writeln!(out, "move: {uci}")?;
    writeln!(out, "san: {san}")?;
    writeln!(out, "fen: {fen}")?;
    if let Some(o) = outcome {
        writeln!(out, "outcome: {o}")?;
    }
    if !claimable_draw.is_empty() {
        writeln!(out, "claimable draw: {claimable_draw}")?;
    }
    Ok(())
}

/// `validate` of an illegal or ambiguous move, as text or JSON (the error
/// itself goes to stderr, exit 1).
pub(crate) fn write_illegal(out: &mut impl Write, text: &str, reason: &str) -> Result<()> {
    if ui::json() {
        let v = serde_json::json!({"type": "validate", "legal": false, "move": text, "reason": reason});
        return ui::emit(out, &v);
    }
    writeln!(out, "illegal")?;
    Ok(())
}

/// A score of an analysis line.
#[derive(Clone, Copy, Debug)]
pub(crate) enum AnalysisScore {
    Cp(i32),
    Mate(i32),
}

/// One `info` line of an analysis.
pub(crate) struct InfoLine {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: u32,
    pub score: AnalysisScore,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub pv: Vec<String>,
    pub pv_san: Vec<String>,
}

impl InfoLine {
    /// As a UCI-style text line with the PV in SAN, or with `--json` as
    /// `{"type":"info",...,"score":{"cp":N}|{"mate":N},"pv":[UCI],"pv_san":[SAN]}`.
    pub(crate) fn write(&self, out: &mut impl Write) -> Result<()> {
        if ui::json() {
            let score = match self.score {
                AnalysisScore::Cp(c) => serde_json::json!({"cp": c}),
                AnalysisScore::Mate(m) => serde_json::json!({"mate": m}),
            };
            let v = serde_json::json!({
                "type": "info", "depth": self.depth, "seldepth": self.seldepth, "multipv": self.multipv,
                "score": score, "nodes": self.nodes, "nps": self.nps, "time_ms": self.time_ms,
                "pv": self.pv, "pv_san": self.pv_san,
            });
            return ui::emit(out, &v);
        }
        let score = match self.score {
            AnalysisScore::Cp(c) => format!("cp {c}"),
            AnalysisScore::Mate(m) => format!("mate {m}"),
        };
        writeln!(
            out,
            "info depth {} seldepth {} multipv {} score {score} nodes {} nps {} time {} pv {}",
            self.depth,
            self.seldepth,
            self.multipv,
            self.nodes,
            self.nps,
            self.time_ms,
            self.pv_san.join(" ")
        )?;
        Ok(())
    }
}

/// The closing line of an analysis: the best move (UCI, SAN), if any.
pub(crate) fn write_bestmove(out: &mut impl Write, best: Option<(&str, &str)>) -> Result<()> {
    if ui::json() {
        let v = serde_json::json!({
            "type": "analyze", "bestmove": best.map(|b| b.0), "bestmove_san": best.map(|b| b.1),
        });
        return ui::emit(out, &v);
    }
    match best {
        Some((u, s)) => writeln!(out, "bestmove {u} ({s})")?,
        None => writeln!(out, "bestmove (none)")?,
    }
    Ok(())
}

/// The `--json` line of EPD line `line`.
pub(crate) fn line_json(result: &LineResult, line: usize, fen: &str) -> serde_json::Value {
    let (result, reasons) = match result {
        LineResult::Passed => ("passed", Vec::new()),
        LineResult::Failed(why) => ("failed", why.clone()),
        LineResult::Skipped(why) => ("skipped", vec![why.clone()]),
    };
    serde_json::json!({"type": "line", "line": line, "fen": fen, "result": result, "reasons": reasons})
}

/// Prints the summary line of an EPD run (`3 passed, 0 failed, 1 skipped`)
/// and gives the exit code: 1 if a line failed, or if nothing at all was
/// checked (said on stderr); 0 otherwise.
/// With `--json` the summary is `{"type":"epd","passed":..,"failed":..,"skipped":..}`.
pub(crate) fn epd_summary(out: &mut impl Write, tally: Tally, max: u32) -> Result<ExitCode> {
    if ui::json() {
        let v = serde_json::json!({
            "type": "epd", "passed": tally.passed, "failed": tally.failed, "skipped": tally.skipped,
        });
        ui::emit(out, &v)?;
    } else {
        writeln!(out, "{} passed, {} failed, {} skipped", tally.passed, tally.failed, tally.skipped)?;
    }
    out.flush()?;
    if tally.failed > 0 {
        return Ok(ExitCode::from(1));
    }
    if tally.passed == 0 {
        eprintln!("nothing was checked: {} line(s), none with a depth at most {max} (see --max-depth)", tally.skipped);
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
