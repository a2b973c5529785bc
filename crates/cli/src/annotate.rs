//! `menagerie annotate FILE...`: whole-game analysis of every game of PGN
//! files — each position searched, each move judged, the annotated PGN out
//! — on this machine (`menagerie_review`) or, with `--remote`, on
//! `menagerie-server` replicas (the `AnnotateGame` RPC), the games spread
//! over them. Both give the same output.

use crate::FanoutArgs;
use crate::remote::{Client, Remote, replicas};
use crate::ui::{self, Progress};
use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, ValueEnum};
use menagerie_api::pb;
use menagerie_notation::pgn::{AnyPgnGame, PgnGame};
use menagerie_review::{
    Budget, Chances, Classification, Eval, GameEnd, GameReview, MoveReport, PositionReport, ReviewEvent, ReviewOptions,
    Side, SideSummary, Summary, SvgMode, Thresholds,
};
use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Mutex, mpsc};

/// Nodes per position when no budget is given.
const DEFAULT_NODES: u64 = 200_000;

/// Which moves get a board picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Pictures {
    /// None.
    None,
    /// Inaccuracies, mistakes and blunders.
    Mistakes,
    /// Every move.
    All,
}

/// Options of `menagerie annotate`.
#[derive(Args, Clone, Debug)]
pub(crate) struct AnnotateArgs {
    /// PGN files of any variant (`-` for standard input); every game is annotated.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Nodes per position (the default budget: 200000).
    #[arg(long, group = "budget")]
    nodes: Option<u64>,
    /// Milliseconds per position.
    #[arg(long, group = "budget")]
    movetime: Option<u64>,
    /// Depth per position (deterministic).
    #[arg(long, group = "budget")]
    depth: Option<u32>,
    /// Positions searched at once, one thread each (0: one per core
    /// locally; with --remote, per game on the server, 0 = 1).
    #[arg(long, short, default_value_t = 0)]
    threads: usize,
    /// Transposition table in MB, shared by the threads (local).
    #[arg(long, default_value_t = 64)]
    hash: usize,
    /// Judge with 10/20/30 points of win probability instead of lichess's 5/10/15.
    #[arg(long)]
    lenient: bool,
    /// Which moves get a board picture (SVG): in --json output, and as
    /// files with --svg-dir.
    #[arg(long, value_enum, default_value = "none")]
    pictures: Pictures,
    /// Write the pictures into this directory as
    /// `game<N>-<ply>-<move>.svg` (with --pictures none: mistakes).
    #[arg(long)]
    svg_dir: Option<PathBuf>,
    /// Write the annotated PGN to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Also accept moves in coordinate form (g1f3) in the files.
    #[arg(long)]
    coordinates: bool,
    #[command(flatten)]
    fanout: FanoutArgs,
}

impl AnnotateArgs {
    fn budget(&self) -> Budget {
        match (self.nodes, self.movetime, self.depth) {
            (_, Some(ms), _) => Budget::Time(Duration::from_millis(ms)),
            (_, _, Some(d)) => Budget::Depth(d),
            (n, _, _) => Budget::Nodes(n.unwrap_or(DEFAULT_NODES)),
        }
    }

    fn svg_mode(&self) -> SvgMode {
        match self.pictures {
            Pictures::All => SvgMode::All,
            Pictures::Mistakes => SvgMode::Mistakes,
            Pictures::None if self.svg_dir.is_some() => SvgMode::Mistakes,
            Pictures::None => SvgMode::None,
        }
    }
}

/// A game to annotate: its number over all files, and where it came from.
struct Input {
    number: usize,
    source: String,
    game: AnyPgnGame,
}

/// Reads every game; bad ones are named on stderr (and in `--json`).
fn read_games(args: &AnnotateArgs, out: &mut impl Write) -> Result<(Vec<Input>, usize)> {
    let (mut games, mut bad, mut number) = (Vec::new(), 0, 0);
    for path in &args.files {
        let name = path.display().to_string();
        let input: Box<dyn BufRead> = if name == "-" {
            Box::new(BufReader::new(std::io::stdin().lock()))
        } else {
            let file = std::fs::File::open(path).with_context(|| format!("cannot open {name}"))?;
            Box::new(BufReader::new(file))
        };
        let options = menagerie_notation::pgn::ReadOptions { coordinates: args.coordinates };
        for result in crate::local::catalogue().pgn_reader(input, options) {
            number += 1;
            match result {
                Ok(game) => games.push(Input { number, source: name.clone(), game }),
                Err(e) => {
                    bad += 1;
                    if ui::json() {
                        let v = serde_json::json!({"type": "bad_game", "number": number, "file": name, "error": e.to_string()});
                        ui::emit(out, &v)?;
                    }
                    eprintln!("{name}: {e}");
                }
            }
        }
    }
    Ok((games, bad))
}

/// Runs `menagerie annotate`: exit 0 when every game was annotated, 1 when
/// a game could not be read or analysed (each named on stderr), 2 for bad
/// options, unreadable files or unreachable servers.
pub(crate) fn run(args: AnnotateArgs, remote: Option<Remote>) -> Result<ExitCode> {
    if let Some(Budget::Nodes(0)) | Some(Budget::Depth(0)) = Some(args.budget()) {
        bail!("the budget per position must be at least 1");
    }
    if args.movetime == Some(0) {
        bail!("--movetime must be at least 1 ms");
    }
    if let Some(dir) = &args.svg_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let (games, bad) = read_games(&args, &mut stdout)?;
    let mut pgn_out: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
        )),
        None => Box::new(std::io::sink()),
    };
    let positions: u64 = games.iter().map(|g| g.game.plies() as u64 + 1).sum();
    let bar = Progress::units(positions, "positions");
    let mut failed = 0usize;
    let mut report = |input: &Input, outcome: Result<(GameReview, String), String>| -> Result<()> {
        match outcome {
            Ok((review, annotated)) => {
                bar.suspend(|| write_game(&args, input, &review, &annotated, &mut stdout, &mut pgn_out))?;
            }
            Err(e) => {
                failed += 1;
                if ui::json() {
                    let v = serde_json::json!({"type": "failed_game", "number": input.number, "file": input.source, "error": e});
                    ui::emit(&mut stdout, &v)?;
                }
                bar.suspend(|| eprintln!("{}: game {}: {e}", input.source, input.number));
            }
        }
        Ok(())
    };
    match remote {
        None => {
            for input in &games {
                let outcome = match &input.game {
                    AnyPgnGame::Compiled(g) => annotate_local(&args, g, &bar),
                    AnyPgnGame::Data(g) => annotate_local(&args, g, &bar),
                };
                report(input, outcome)?;
            }
        }
        Some(remote) => {
            let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            rt.block_on(annotate_remote(&args, &remote, &games, &bar, &mut report))?;
        }
    }
    bar.finish();
    if ui::json() {
        let v = serde_json::json!({"type": "annotate", "games": games.len() + bad, "annotated": games.len() - failed, "bad": bad + failed});
        ui::emit(&mut stdout, &v)?;
    }
    stdout.flush()?;
    pgn_out.flush()?;
    Ok(if bad + failed > 0 || games.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// One game on this machine.
fn annotate_local<P: menagerie_review::ReviewPosition>(
    args: &AnnotateArgs,
    game: &PgnGame<P>,
    bar: &Progress,
) -> Result<(GameReview, String), String> {
    let options = ReviewOptions {
        budget: args.budget(),
        workers: args.threads,
        hash_mb: args.hash.max(1),
        svg: args.svg_mode(),
        thresholds: if args.lenient { Thresholds::LENIENT } else { Thresholds::LICHESS },
        stop: None,
        max_time: None,
    };
    let review = menagerie_review::review(game, &options, |event| {
        if let ReviewEvent::Position(p) = event {
            bar.add_nodes(p.nodes);
            bar.inc(1);
        }
    })
    .map_err(|e| e.to_string())?;
    let annotated = review.annotated_pgn(game).map_err(|e| e.to_string())?;
    Ok((review, annotated))
}

/// Writes one annotated game: PGN (stdout, or `--output`) or a JSON line,
/// the pictures, and a summary line on stderr.
fn write_game(
    args: &AnnotateArgs,
    input: &Input,
    review: &GameReview,
    annotated: &str,
    stdout: &mut impl Write,
    pgn_out: &mut dyn Write,
) -> Result<()> {
    if let Some(dir) = &args.svg_dir {
        for m in &review.moves {
            if let Some(svg) = &m.svg {
                let san: String =
                    m.played_san.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
                let path = dir.join(format!("game{}-{:03}-{san}.svg", input.number, m.index));
                std::fs::write(&path, svg).with_context(|| format!("cannot write {}", path.display()))?;
            }
        }
    }
    let tag = |name: &str| input.game.tag(name).unwrap_or("?").to_string();
    if ui::json() {
        let v = serde_json::json!({
            "type": "game",
            "number": input.number,
            "file": input.source,
            "white": tag("White"),
            "black": tag("Black"),
            "result": input.game.result().as_str(),
            "review": review,
            "annotated_pgn": annotated,
        });
        ui::emit(stdout, &v)?;
    }
    if args.output.is_some() {
        writeln!(pgn_out, "{annotated}")?;
    } else if !ui::json() {
        writeln!(stdout, "{annotated}")?;
    }
    let side = |name: &str, s: &SideSummary| {
        format!(
            "{name} accuracy {}, ACPL {}, {} inaccuracies, {} mistakes, {} blunders",
            s.accuracy.map_or("-".into(), |a| format!("{a:.1}%")),
            s.average_centipawn_loss.map_or("-".into(), |a| format!("{a:.0}")),
            s.inaccuracies,
            s.mistakes,
            s.blunders
        )
    };
    eprintln!(
        "game {} ({} - {}): {}; {}",
        input.number,
        tag("White"),
        tag("Black"),
        side("White", &review.summary.white),
        side("Black", &review.summary.black)
    );
    Ok(())
}

/// Codes worth trying again, perhaps on another replica.
fn transient(code: tonic::Code) -> bool {
    matches!(
        code,
        tonic::Code::Unavailable
            | tonic::Code::ResourceExhausted
            | tonic::Code::DeadlineExceeded
            | tonic::Code::Aborted
            | tonic::Code::Unknown
    )
}

/// The games spread over the replicas (`--jobs-per-replica` games at a
/// time on each), reported in input order.
async fn annotate_remote(
    args: &AnnotateArgs,
    remote: &Remote,
    games: &[Input],
    bar: &Progress,
    report: &mut impl FnMut(&Input, Result<(GameReview, String), String>) -> Result<()>,
) -> Result<()> {
    if games.is_empty() {
        return Ok(());
    }
    let reps = replicas(remote).await?;
    let queue: Arc<Mutex<VecDeque<(usize, u32)>>> = Arc::new(Mutex::new((0..games.len()).map(|i| (i, 0)).collect()));
    let (tx, mut rx) = mpsc::channel::<(usize, Result<(GameReview, String), String>)>(64);
    let requests = games.iter().map(|g| request(args, &g.game)).collect::<Result<Vec<_>>>()?;
    let requests: Arc<Vec<pb::AnnotateGameRequest>> = Arc::new(requests);
    let attempts = args.fanout.attempts.max(1);
    let timeout = (args.fanout.job_timeout > 0).then(|| Duration::from_secs(args.fanout.job_timeout));
    let mut tasks = Vec::new();
    for rep in reps {
        for _ in 0..args.fanout.jobs_per_replica.max(1) {
            let (queue, tx, requests, rep, bar) =
                (queue.clone(), tx.clone(), requests.clone(), rep.clone(), bar.clone());
            tasks.push(tokio::spawn(async move {
                let mut client: Option<Client> = None;
                loop {
                    let Some((i, tries)) = queue.lock().await.pop_front() else { return };
                    let connected = match client.take() {
                        Some(c) => Ok(c),
                        None => rep.connect_or_status().await.map(|c| c.max_decoding_message_size(64 << 20)),
                    };
                    let outcome = match connected {
                        Ok(mut c) => {
                            let r = annotate_one(&mut c, &requests[i], timeout, &bar).await;
                            client = Some(c);
                            r
                        }
                        Err(s) => Err(s),
                    };
                    match outcome {
                        Ok(done) => {
                            let _ = tx.send((i, Ok(done))).await;
                        }
                        Err(s) if transient(s.code()) && tries + 1 < attempts => {
                            client = None;
                            queue.lock().await.push_back((i, tries + 1));
                            tokio::time::sleep(Duration::from_millis(200)).await;
                        }
                        Err(s) => {
                            let _ = tx.send((i, Err(format!("{} ({}, {})", s.message(), s.code(), rep.name)))).await;
                        }
                    }
                }
            }));
        }
    }
    drop(tx);
    // Report in input order: hold results until the ones before them are in.
    let mut held = BTreeMap::new();
    let mut next = 0;
    while let Some((i, outcome)) = rx.recv().await {
        held.insert(i, outcome);
        while let Some(outcome) = held.remove(&next) {
            report(&games[next], outcome)?;
            next += 1;
        }
    }
    for t in tasks {
        t.await.map_err(|e| anyhow!("a fan-out task failed: {e}"))?;
    }
    if next < games.len() {
        bail!("{} games got no answer", games.len() - next);
    }
    Ok(())
}

fn request(args: &AnnotateArgs, game: &AnyPgnGame) -> Result<pb::AnnotateGameRequest> {
    let (depth, nodes, movetime_ms) = match args.budget() {
        Budget::Depth(d) => (d, 0, 0),
        Budget::Nodes(n) => (0, n, 0),
        Budget::Time(t) => (0, 0, u32::try_from(t.as_millis()).unwrap_or(u32::MAX)),
    };
    Ok(pb::AnnotateGameRequest {
        pgn: game.to_pgn()?,
        position: None,
        depth,
        nodes,
        movetime_ms,
        threads: u32::try_from(args.threads).unwrap_or(u32::MAX),
        pictures: match args.svg_mode() {
            SvgMode::None => pb::Pictures::Unspecified,
            SvgMode::Mistakes => pb::Pictures::Mistakes,
            SvgMode::All => pb::Pictures::All,
        } as i32,
        thresholds: if args.lenient { pb::Thresholds::Lenient } else { pb::Thresholds::Unspecified } as i32,
    })
}

/// One AnnotateGame call, its events turned into a [`GameReview`].
async fn annotate_one(
    client: &mut Client,
    req: &pb::AnnotateGameRequest,
    timeout: Option<Duration>,
    bar: &Progress,
) -> Result<(GameReview, String), tonic::Status> {
    use pb::annotate_game_response::Event;
    let mut request = tonic::Request::new(req.clone());
    if let Some(t) = timeout {
        request.set_timeout(t);
    }
    let mut stream = client.annotate_game(request).await?.into_inner();
    let (mut positions, mut moves, mut counted) = (Vec::new(), Vec::new(), 0u64);
    while let Some(m) = stream.message().await? {
        match m.event {
            Some(Event::Position(p)) => {
                bar.add_nodes(p.nodes);
                bar.inc(1);
                counted += 1;
                positions.push(position_from_pb(p));
            }
            Some(Event::Move(m)) => moves.push(move_from_pb(m)),
            Some(Event::Summary(s)) => {
                positions.sort_by_key(|p: &PositionReport| p.index);
                moves.sort_by_key(|m: &MoveReport| m.index);
                let variant = crate::local::catalogue().find(&s.variant).map_err(|_| {
                    tonic::Status::internal(format!("the server reviewed unknown variant {}", s.variant))
                })?;
                // The streamed reports carry everything the totals are
                // made of: the same computation as a local review's.
                let summary = Summary::of(&positions, &moves);
                return Ok((
                    GameReview { variant: variant.name().to_string(), positions, moves, summary },
                    s.annotated_pgn,
                ));
            }
            _ => {}
        }
    }
    // A retry starts the game over: its positions count again.
    bar.grow(counted);
    Err(tonic::Status::unavailable("the stream ended without a summary"))
}

fn side_from(name: &str) -> Side {
    if name == "black" { Side::Black } else { Side::White }
}

fn eval_from_pb(e: Option<pb::Evaluation>) -> Eval {
    match e.and_then(|e| e.value) {
        Some(pb::evaluation::Value::Cp(cp)) => Eval::Cp(cp),
        Some(pb::evaluation::Value::Mate(n)) => Eval::Mate(n),
        Some(pb::evaluation::Value::Won(side)) => Eval::Won(side_from(&side)),
        None => Eval::Cp(0),
    }
}

fn position_from_pb(p: pb::PositionReview) -> PositionReport {
    let some = |s: String| (!s.is_empty()).then_some(s);
    PositionReport {
        index: p.index as usize,
        side_to_move: side_from(&p.side_to_move),
        score: eval_from_pb(p.evaluation),
        best_move_uci: some(p.best_move),
        best_move_san: some(p.best_move_san),
        pv_san: p.pv_san,
        pv_uci: p.pv,
        depth: p.depth,
        nodes: p.nodes,
        time_ms: p.time_ms,
        outcome: (!p.result.is_empty()).then_some(GameEnd { result: p.result, description: p.result_description }),
        chances: p.wdl.map(|w| Chances { white: w.win, draw: w.draw, black: w.loss }).unwrap_or_default(),
        fen: p.fen,
    }
}

fn move_from_pb(m: pb::MoveReview) -> MoveReport {
    use pb::MoveClassification as P;
    let classification = match P::try_from(m.classification) {
        Ok(P::Blunder) => Classification::Blunder,
        Ok(P::Mistake) => Classification::Mistake,
        Ok(P::Inaccuracy) => Classification::Inaccuracy,
        Ok(P::Best) => Classification::Best,
        _ => Classification::Good,
    };
    MoveReport {
        index: m.ply as usize,
        move_number: m.move_number,
        colour: side_from(&m.color),
        played_san: m.played_san,
        played_uci: m.played,
        best_san: m.best_move_san,
        best_uci: m.best_move,
        eval_before: eval_from_pb(m.evaluation_before),
        eval_after: eval_from_pb(m.evaluation_after),
        win_before: m.win_before,
        win_after: m.win_after,
        loss: m.loss,
        cp_loss: m.cp_loss,
        accuracy: m.accuracy,
        classification,
        best_line_san: m.best_line_san,
        best_line_uci: m.best_line,
        svg: (!m.svg.is_empty()).then_some(m.svg),
    }
}
