//! `menagerie svg`: a board picture (SVG) of a position of any variant
//! (compiled or defined as data), with the last move, check, arrows and
//! highlighted squares. Always runs on this machine.

use anyhow::{Context, Result};
use clap::Args;
use menagerie_render::{BoardRequest, DEFAULT_SIZE};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `menagerie svg`.
#[derive(Args, Clone, Debug)]
pub(crate) struct SvgArgs {
    #[command(flatten)]
    pub(crate) pos: crate::PositionArgs,
    /// Black at the bottom.
    #[arg(long)]
    flip: bool,
    /// An arrow FROMTO with an optional colour (`e2e4`, `g1f3:red`,
    /// `a10j1:#ff8800`); may be repeated. Colours: green (default), red,
    /// blue, yellow, orange, purple, black, white, #rgb, #rrggbb.
    #[arg(long = "arrow", value_name = "FROMTO[:COLOUR]")]
    arrows: Vec<String>,
    /// A highlighted square with an optional colour (`e4`, `d5:yellow`;
    /// blue by default); may be repeated.
    #[arg(long = "highlight", value_name = "SQUARE[:COLOUR]")]
    highlights: Vec<String>,
    /// Picture width in pixels (16 to 8192).
    #[arg(long, default_value_t = DEFAULT_SIZE, value_name = "PIXELS")]
    size: u32,
    /// Leave out the file letters and rank numbers.
    #[arg(long)]
    no_coordinates: bool,
    /// Write the picture to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
}

/// Runs `menagerie svg`: the picture on stdout or in `--output` (with
/// `--json`: `{"type":"svg","svg":TEXT}`, or `{"type":"svg","file":PATH,"bytes":N}`); bad input
/// (variant, FEN, moves, squares, colours, size) is an error (exit 2).
pub(crate) fn run(args: SvgArgs) -> Result<ExitCode> {
    let moves = args.pos.move_list();
    let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
    let arrows: Vec<&str> = args.arrows.iter().map(String::as_str).collect();
    let highlights: Vec<&str> = args.highlights.iter().map(String::as_str).collect();
    let req = BoardRequest {
        variant: &args.pos.variant,
        fen: args.pos.fen.as_deref().unwrap_or(""),
        moves: &moves,
        arrows: &arrows,
        highlights: &highlights,
        flip: args.flip,
        size: args.size,
        coordinates: !args.no_coordinates,
    };
    let position = menagerie_app::PositionRequest::new(&args.pos.variant, req.fen, &moves);
    let svg = crate::local::catalogue().render_board(&position, &req)?;
    let json = crate::ui::json();
    match &args.output {
        Some(path) => {
            std::fs::write(path, &svg).with_context(|| format!("cannot write {}", path.display()))?;
            if json {
                let v = serde_json::json!({"type": "svg", "file": path.display().to_string(), "bytes": svg.len()});
                crate::ui::emit(&mut std::io::stdout().lock(), &v)?;
            }
        }
        None if json => {
            crate::ui::emit(&mut std::io::stdout().lock(), &serde_json::json!({"type": "svg", "svg": svg}))?
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(svg.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
