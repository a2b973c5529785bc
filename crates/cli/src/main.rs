//! `menagerie`: perft, divide, legal moves, move validation, analysis and
//! EPD suite verification for every Menagerie variant — on this machine, or
//! with `--remote URL[,URL...]` on one or many `menagerie-server` replicas.

mod annotate;
mod fanout;
mod local;
mod matches;
mod pgn;
mod remote;
mod report;
mod results;
mod svg;
mod ui;

use anyhow::{Context as _, Result, bail};
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Deepest perft the CLI accepts.
const MAX_DEPTH: u32 = 20;

/// Largest perft table the CLI accepts, in MB (larger sizes overflow the
/// table's size computation or cannot be allocated).
const MAX_HASH_MB: usize = 1 << 16;

#[derive(Parser)]
#[command(
    name = "menagerie",
    version,
    about = "Menagerie: chess and fairy variants — perft, moves, validation, analysis"
)]
struct Cli {
    /// Output JSON Lines on stdout: one JSON object per line, each with a
    /// "type"; streams (divide, moves, analyze, epd, pgn) end with a
    /// summary object. Errors stay one `error:` line on stderr.
    #[arg(long, global = true)]
    json: bool,
    /// Never draw progress bars (they are drawn on stderr only when it is a
    /// terminal, and not with TERM=dumb).
    #[arg(long, global = true)]
    no_progress: bool,
    /// Variant definitions to add to the built-in ones: Fairy-Stockfish's
    /// `variants.ini` format (see README "Variants as data"); repeatable.
    #[arg(long = "variants", global = true, env = "MENAGERIE_VARIANTS", value_name = "FILE", value_delimiter = ',')]
    variant_files: Vec<PathBuf>,
    /// A `--variants` section Menagerie cannot play (an unknown or
    /// unsupported key or value, an unknown parent, ...) is an error. Without
    /// it such a section is skipped with a warning on stderr naming the
    /// file, line and reason, and the other sections load.
    #[arg(long, global = true, env = "MENAGERIE_STRICT_VARIANTS")]
    strict: bool,
    /// Network files (docs/nnue.md) for local analysis, replacing the
    /// embedded network of the game each file's header names; repeatable.
    #[arg(long = "eval-file", global = true, env = "MENAGERIE_EVAL_FILES", value_name = "FILE", value_delimiter = ',')]
    eval_files: Vec<PathBuf>,
    /// Run the command on menagerie-server replicas (comma-separated URLs,
    /// e.g. http://127.0.0.1:50051, or https://HOST:50051 for TLS). A host
    /// name resolving to several addresses counts as one replica per address.
    /// A single request goes to one replica (the first that accepts a
    /// connection, from a varying start); batches spread over all of them.
    #[arg(long, global = true, env = "MENAGERIE_REMOTE", value_delimiter = ',', help_heading = remote::HEADING)]
    remote: Vec<String>,
    // Last of the flags: their heading would carry over to the flags after them.
    #[command(flatten)]
    connect: remote::ConnectArgs,
    #[command(subcommand)]
    command: TopCommand,
}

/// Every subcommand: the engine commands (local or remote) and `pgn`.
#[derive(Subcommand)]
enum TopCommand {
    #[command(flatten)]
    Engine(Command),
    /// Read a PGN file of any variant: re-export, --check, --fen or --uci.
    ///
    /// Without an option the games are written back as normalised PGN;
    /// --check validates them, --fen prints each game's final position,
    /// --uci its main line in coordinate form. Runs locally (--remote is
    /// ignored); exit 1 names every bad game on stderr.
    Pgn(pgn::PgnArgs),
    /// Play engines against each other (UCI or XBoard) in any variant.
    ///
    /// Menagerie referees: legality and game ends by its rules, clocks,
    /// openings from EPD/PGN played with both colours, adjudication, PGN
    /// output, Elo with error bars, LOS and an optional SPRT. Runs locally:
    /// the server options are ignored.
    Match(matches::MatchArgs),
    /// Annotate whole games: every position searched, every move judged.
    ///
    /// Each game of the PGN files is analysed position by position under a
    /// budget (--nodes, --movetime or --depth each; several positions at
    /// once), each move judged by the drop in the mover's win probability
    /// (inaccuracy ?!, mistake ?, blunder ??, lichess's thresholds), and
    /// written back with [%eval] comments, NAGs, verdicts and the engine's
    /// lines; a summary per side (accuracy, average centipawn loss) goes to
    /// stderr. With --remote the games are spread over the replicas.
    Annotate(annotate::AnnotateArgs),
    /// Draw a position of any variant as an SVG picture.
    ///
    /// Coordinates, the last of --moves shaded, check, arrows, highlighted
    /// squares, either side at the bottom, and the reserve pieces of the
    /// gating variants. Runs locally: the server options are ignored.
    Svg(svg::SvgArgs),
    /// List the games Menagerie plays: name, board, pieces, start FEN, rules.
    ///
    /// With --json one object per variant and line.
    Variants,
}

/// The limits and options of an analysis on the command line.
#[derive(Args, Clone, Copy, Debug)]
pub(crate) struct SearchArgs {
    /// Depth limit.
    #[arg(long)]
    pub(crate) depth: Option<u32>,
    /// Node limit.
    #[arg(long)]
    pub(crate) nodes: Option<u64>,
    /// Time limit in milliseconds (default 1000 when no limit is given).
    #[arg(long)]
    pub(crate) movetime: Option<u64>,
    /// Principal variations to show.
    #[arg(long, default_value_t = 1)]
    pub(crate) multipv: u32,
    /// Search threads.
    #[arg(long, short, default_value_t = 1)]
    pub(crate) threads: u32,
}

/// A position on the command line.
#[derive(Args, Clone, Debug)]
pub(crate) struct PositionArgs {
    /// Variant name (chess, alpaca, alpaca2, alpaca-samefile, alseid, alseid-weak, camel-rhino, chess960).
    #[arg(long, short, default_value = "chess")]
    variant: String,
    /// Position in FEN; the variant's start position if omitted.
    #[arg(long, short)]
    fen: Option<String>,
    /// Moves (coordinate or SAN) played from the position first; space or
    /// comma separated (a walling move keeps its comma: `e2e4,e4d5`), the
    /// option may be repeated (`--moves "e2e4 e7e5"`).
    #[arg(long, short, value_delimiter = ',')]
    moves: Vec<String>,
    /// Chess960 start position number N (0 to 959; 518 is the orthodox
    /// array) instead of --fen; needs --variant chess960.
    #[arg(long, value_name = "N", conflicts_with = "fen")]
    start_number: Option<u16>,
}

impl PositionArgs {
    /// Turns `--start-number N` into the FEN of that Chess960 start.
    fn resolve(&mut self) -> Result<()> {
        let Some(n) = self.start_number else { return Ok(()) };
        if !self.variant.eq_ignore_ascii_case("chess960") {
            bail!("--start-number needs --variant chess960 (got '{}')", self.variant);
        }
        match menagerie_variants::chess960_start_fen(n) {
            Some(fen) => self.fen = Some(fen),
            None => bail!("--start-number {n} is out of range (0 to 959)"),
        }
        Ok(())
    }

    /// The moves as single tokens.
    pub(crate) fn move_list(&self) -> Vec<String> {
        self.moves.iter().flat_map(|m| m.split_whitespace()).map(str::to_string).collect()
    }
}

/// How work is spread over replicas (remote only), and the results file.
#[derive(Args, Clone, Debug)]
pub(crate) struct FanoutArgs {
    /// Jobs in flight per replica.
    #[arg(long, default_value_t = 2)]
    jobs_per_replica: usize,
    /// Attempts per job before giving up (each retry may go to another replica).
    #[arg(long, default_value_t = 5)]
    attempts: u32,
    /// Per-job timeout in seconds (0 = none); a timed-out job is retried.
    #[arg(long, default_value_t = 0)]
    job_timeout: u64,
    /// JSON-lines results file: finished jobs are appended, and jobs already
    /// in it are not run again (resume an interrupted run). For `epd` (local
    /// or remote) and for `perft --split-depth`.
    #[arg(long)]
    results: Option<PathBuf>,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Count leaf nodes at DEPTH; the count alone is the last line of stdout.
    Perft {
        #[command(flatten)]
        pos: PositionArgs,
        /// Worker threads (root moves in parallel; per job when remote).
        #[arg(long, short, default_value_t = 1)]
        threads: usize,
        /// Transposition table size in MB (0 = no table).
        #[arg(long, default_value_t = 0)]
        hash: usize,
        /// With --remote: split the tree after this many plies and fan the
        /// subtrees (de-duplicated, with multiplicities) out over the replicas.
        #[arg(long)]
        split_depth: Option<u32>,
        #[command(flatten)]
        fanout: FanoutArgs,
        /// Depth in plies.
        depth: u32,
    },
    /// Perft per root move: `MOVE: COUNT` lines, then the total alone.
    Divide {
        #[command(flatten)]
        pos: PositionArgs,
        /// Worker threads.
        #[arg(long, short, default_value_t = 1)]
        threads: usize,
        /// Depth in plies.
        depth: u32,
    },
    /// Every legal move in coordinate form, one per line.
    Moves {
        #[command(flatten)]
        pos: PositionArgs,
        /// Also print each move's SAN.
        #[arg(long)]
        san: bool,
        /// Also print the FEN after each move.
        #[arg(long)]
        fens: bool,
    },
    /// Whether MOVE (coordinate or SAN) is legal; prints the resulting FEN and SAN.
    Validate {
        #[command(flatten)]
        pos: PositionArgs,
        /// The move to check.
        #[arg(name = "MOVE")]
        mv: String,
    },
    /// Best-move analysis: info lines as the search deepens, then `bestmove`.
    Analyze {
        #[command(flatten)]
        pos: PositionArgs,
        #[command(flatten)]
        search: SearchArgs,
    },
    /// Verify every line of an EPD perft suite (`<fen> ;D1 n ;D2 m ...`).
    Epd {
        /// The suite file.
        file: PathBuf,
        /// Variant for lines without a `;variant` opcode.
        #[arg(long, short, default_value = "chess")]
        variant: String,
        /// Skip depths above this.
        #[arg(long)]
        max_depth: Option<u32>,
        /// Worker threads (local), or perft threads per job (remote).
        #[arg(long, short, default_value_t = 1)]
        threads: usize,
        #[command(flatten)]
        fanout: FanoutArgs,
    },
}

/// Installs the `--eval-file` networks for the local searches.
fn load_eval_files(paths: &[PathBuf]) -> Result<()> {
    for path in paths {
        menagerie_search::nnue::registry::install_file(path)
            .with_context(|| format!("cannot load --eval-file {}", path.display()))?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    ui::init(cli.json, cli.no_progress);
    let result = check_flags(&matches, !cli.remote.is_empty())
        .and_then(|()| local::load_variants(&cli.variant_files, cli.strict))
        .and_then(|()| load_eval_files(&cli.eval_files))
        .and_then(|()| run(cli));
    match result {
        Ok(code) => code,
        // A reader that stops early (`| head`) is not an error.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            // Each cause's text is often already part of its parent's.
            let mut msg = String::new();
            for cause in e.chain().map(|c| c.to_string()) {
                if !msg.contains(&cause) {
                    if !msg.is_empty() {
                        msg.push_str(": ");
                    }
                    msg.push_str(&cause);
                }
            }
            eprintln!("error: {msg}");
            ExitCode::from(exit_code(&e))
        }
    }
}

/// Runs the command.
fn run(mut cli: Cli) -> Result<ExitCode> {
    match &mut cli.command {
        TopCommand::Engine(
            Command::Perft { pos, .. }
            | Command::Divide { pos, .. }
            | Command::Moves { pos, .. }
            | Command::Validate { pos, .. }
            | Command::Analyze { pos, .. },
        ) => pos.resolve()?,
        TopCommand::Svg(args) => args.pos.resolve()?,
        _ => {}
    }
    match cli.command {
        TopCommand::Pgn(args) => pgn::run(args),
        TopCommand::Match(args) => matches::run(args),
        TopCommand::Variants => variants(),
        TopCommand::Svg(args) => svg::run(args),
        TopCommand::Annotate(args) if cli.remote.is_empty() => annotate::run(args, None),
        TopCommand::Annotate(args) => {
            let remote = remote::Remote::new(cli.remote, &cli.connect)?;
            annotate::run(args, Some(remote))
        }
        TopCommand::Engine(command) if cli.remote.is_empty() => local::run(command),
        TopCommand::Engine(command) => {
            remote::Remote::new(cli.remote, &cli.connect).and_then(|r| remote::run(&r, command))
        }
    }
}

/// Rejects flags given where they do nothing (exit 2): the fan-out flags
/// without `--remote`, `--split-depth` without `--remote`, and for `perft`
/// the fan-out flags and `--results` without `--split-depth`.
fn check_flags(matches: &ArgMatches, remote: bool) -> Result<()> {
    let given = |sub: &ArgMatches, id: &str| matches!(sub.value_source(id), Some(s) if s != ValueSource::DefaultValue);
    const FANOUT: [(&str, &str); 3] =
        [("jobs_per_replica", "--jobs-per-replica"), ("attempts", "--attempts"), ("job_timeout", "--job-timeout")];
    match matches.subcommand() {
        Some(("perft", sub)) => {
            let split = given(sub, "split_depth");
            if split && !remote {
                bail!("--split-depth needs --remote");
            }
            for (id, flag) in FANOUT.iter().chain(&[("results", "--results")]) {
                if given(sub, id) {
                    if !remote {
                        bail!("{flag} needs --remote (and --split-depth): a local perft runs no jobs");
                    }
                    if !split {
                        bail!("{flag} needs --split-depth: a remote perft without it is a single call");
                    }
                }
            }
        }
        Some(("annotate", sub)) if given(sub, "results") => {
            bail!("--results does not apply to annotate: it writes its output with --output or on stdout");
        }
        Some(("epd" | "annotate", sub)) if !remote => {
            for (id, flag) in FANOUT {
                if given(sub, id) {
                    bail!("{flag} needs --remote");
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// A move the server found illegal (its reason), for exit status 1.
#[derive(Debug)]
pub(crate) struct IllegalMove(pub String);

impl std::fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IllegalMove {}

/// Exit status of a failed command: 1 when the input was well formed but a
/// move in it is illegal or ambiguous (locally, or as the server said), 2
/// for anything else (bad input, I/O, connection).
fn exit_code(e: &anyhow::Error) -> u8 {
    for cause in e.chain() {
        if cause.downcast_ref::<IllegalMove>().is_some() {
            return 1;
        }
        if let Some(m) = cause.downcast_ref::<menagerie_game::MoveError>() {
            return if m.is_malformed() { 2 } else { 1 };
        }
        if let Some(m) = cause.downcast_ref::<menagerie_notation::MoveError>() {
            return if matches!(
                m,
                menagerie_notation::MoveError::Illegal { .. } | menagerie_notation::MoveError::Ambiguous(_)
            ) {
                1
            } else {
                2
            };
        }
        if let Some(s) = cause.downcast_ref::<tonic::Status>()
            && s.code() == tonic::Code::FailedPrecondition
        {
            return 1;
        }
    }
    2
}

/// `menagerie variants`: every game with its board, pieces and start.
fn variants() -> Result<ExitCode> {
    let json = ui::json();
    let mut out = std::io::stdout().lock();
    for v in local::catalogue().catalogue() {
        if json {
            // Variants defined as data give their pieces no value.
            let pieces: Vec<serde_json::Value> = v
                .pieces
                .iter()
                .map(|p| serde_json::json!({"letter": p.letter.to_string(), "name": p.name, "betza": p.betza, "value": p.value}))
                .collect();
            let mut line = serde_json::json!({
                "type": "variant", "name": v.name, "files": v.files, "ranks": v.ranks, "pieces": pieces,
                "start_fen": v.start_fen, "summary": v.summary,
            });
            if v.defined_as_data {
                line["data"] = true.into();
            } else {
                line["reserve_piece"] = v.reserve_piece.map(String::from).into();
            }
            writeln!(out, "{line}")?;
        } else {
            let pieces: Vec<String> =
                v.pieces.iter().map(|p| format!("{} {} ({})", p.letter, p.name, p.betza)).collect();
            writeln!(out, "{}  {}x{}  {}", v.name, v.files, v.ranks, v.summary)?;
            writeln!(out, "    pieces: {}", pieces.join(", "))?;
            writeln!(out, "    start:  {}", v.start_fen)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
