//! `menagerie-datagen`: self-play at fixed nodes with the engine's own
//! search, writing `<FEN> | <score> | <result>` lines for NNUE training.

use anyhow::{Context, Result, bail};
use clap::Parser;
use menagerie_nnue_tools::data::{Record, append_to, variant_arg};
use menagerie_nnue_tools::rng::Rng;
use menagerie_pieces::Color;
use menagerie_search::{Engine, EngineOptions, Limits, Score};
use menagerie_variants::{Game, MoveKind, Outcome, VariantId};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Self-play data generation for NNUE training.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// Variant (`chess`, `alpaca`, `alseid`, `camel-rhino`, `camel-rhino-plain`, ...).
    #[arg(long, default_value = "chess", value_parser = variant_arg)]
    variant: VariantId,
    /// Nodes per move.
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of games (unbounded when only `--minutes` is given).
    #[arg(long)]
    games: Option<u64>,
    /// Stop starting new games after this many minutes.
    #[arg(long)]
    minutes: Option<f64>,
    /// Uniformly random legal plies from the start position (prelude actions not counted).
    #[arg(long, default_value_t = 8)]
    random_plies: u32,
    /// Probability that a side accepts the gating prelude (Alpaca family).
    #[arg(long, default_value_t = 0.8)]
    accept: f64,
    /// A game is a draw after this many plies.
    #[arg(long, default_value_t = 400)]
    max_plies: u32,
    /// Win adjudication: |score| beyond this many centipawns ...
    #[arg(long, default_value_t = 1500)]
    win_score: i32,
    /// ... for this many consecutive plies.
    #[arg(long, default_value_t = 6)]
    win_plies: u32,
    /// Transposition table size in MB.
    #[arg(long, default_value_t = 8)]
    hash: usize,
    /// Output file (appended to).
    #[arg(long)]
    out: PathBuf,
}

/// Score in centipawns from White's point of view; `None` for mate scores.
fn white_cp(score: Score, stm: Color) -> Option<i32> {
    match score {
        Score::Cp(c) => Some(if stm == Color::White { c } else { -c }),
        Score::Mate(_) => None,
    }
}

/// Score for adjudication from White's point of view (mates as ±100000).
fn white_adj(score: Score, stm: Color) -> i32 {
    let s = match score {
        Score::Cp(c) => c,
        Score::Mate(m) if m > 0 => 100_000,
        Score::Mate(_) => -100_000,
    };
    if stm == Color::White { s } else { -s }
}

/// Plays the opening: random plies (prelude decisions by `accept`). `None`
/// when the game ended during it.
fn opening(variant: VariantId, args: &Args, rng: &mut Rng) -> Option<Game> {
    let mut game = Game::new(menagerie_variants::AnyPosition::start(variant));
    let mut plies = 0;
    while plies < args.random_plies {
        if game.outcome().is_some() {
            return None;
        }
        let moves: Vec<_> = game.position().legal_moves().iter().copied().collect();
        if moves.is_empty() {
            return None;
        }
        let decision: Vec<_> =
            moves.iter().copied().filter(|m| matches!(m.kind, MoveKind::Accept | MoveKind::Decline)).collect();
        let m = if !decision.is_empty() {
            let want = if rng.unit() < args.accept { MoveKind::Accept } else { MoveKind::Decline };
            decision.iter().copied().find(|m| m.kind == want).unwrap_or(decision[0])
        } else {
            moves[rng.below(moves.len())]
        };
        if !m.is_prelude() {
            plies += 1;
        }
        game.play(m).ok()?;
    }
    if game.outcome().is_some() { None } else { Some(game) }
}

struct GameStats {
    positions: u64,
    result: f32,
}

fn play_game(engine: &mut Engine, mut game: Game, args: &Args, out: &mut impl Write) -> Result<GameStats> {
    engine.new_game();
    let mut records = Vec::new();
    let mut white_streak = 0u32;
    let mut black_streak = 0u32;
    let result = loop {
        if let Some(o) = game.outcome() {
            break match o {
                Outcome::Win { winner: Color::White, .. } => 1.0,
                Outcome::Win { .. } => 0.0,
                Outcome::Draw(_) => 0.5,
            };
        }
        if game.moves().len() as u32 >= args.max_plies {
            break 0.5;
        }
        let moves: Vec<menagerie_game::Move> = game.moves().iter().map(|&m| m.into()).collect();
        engine.set_position(*game.start(), &moves).map_err(|e| anyhow::anyhow!("replaying the game: {e}"))?;
        let res = engine.search(Limits::nodes(args.nodes), |_| {});
        let Some(best) = res.best.and_then(menagerie_game::Move::compiled) else {
            bail!("the search found no move in a position that is not over")
        };
        let pos = *game.position();
        let stm = pos.side_to_move();
        if let Some(cp) = white_cp(res.score, stm)
            && !pos.is_check()
            && !pos.is_tactical(best)
            && !best.is_prelude()
        {
            records.push(Record { fen: menagerie_notation::fen::format(&pos), score: cp, result: 0.5 });
        }
        let adj = white_adj(res.score, stm);
        white_streak = if adj > args.win_score { white_streak + 1 } else { 0 };
        black_streak = if adj < -args.win_score { black_streak + 1 } else { 0 };
        if white_streak >= args.win_plies {
            break 1.0;
        }
        if black_streak >= args.win_plies {
            break 0.0;
        }
        game.play(best).map_err(|e| anyhow::anyhow!("the search's move is illegal: {e:?}"))?;
    };
    for r in &mut records {
        r.result = result;
        writeln!(out, "{}", r.to_line())?;
    }
    out.flush()?;
    Ok(GameStats { positions: records.len() as u64, result })
}

fn main() -> Result<()> {
    let args = Args::parse();
    let variant = args.variant;
    if args.games.is_none() && args.minutes.is_none() {
        bail!("give --games or --minutes");
    }
    let mut out = append_to(&args.out).with_context(|| format!("opening {}", args.out.display()))?;
    let mut engine = Engine::new(EngineOptions { hash_mb: args.hash.max(1), threads: 1, multipv: 1 });
    let mut rng = Rng::new(args.seed);
    let start = Instant::now();
    let deadline = args.minutes.map(|m| Duration::from_secs_f64(m.max(0.0) * 60.0));
    let (mut games, mut positions, mut wins, mut draws, mut losses) = (0u64, 0u64, 0u64, 0u64, 0u64);
    loop {
        if args.games.is_some_and(|g| games >= g) || deadline.is_some_and(|d| start.elapsed() >= d) {
            break;
        }
        let Some(game) = opening(variant, &args, &mut rng) else { continue };
        let stats = play_game(&mut engine, game, &args, &mut out)?;
        games += 1;
        positions += stats.positions;
        match stats.result {
            r if r > 0.75 => wins += 1,
            r if r < 0.25 => losses += 1,
            _ => draws += 1,
        }
        if games % 10 == 0 {
            let secs = start.elapsed().as_secs_f64();
            eprintln!(
                "{games} games, {positions} positions, {:.1} positions/s, W/D/L {wins}/{draws}/{losses}",
                positions as f64 / secs.max(1e-9)
            );
        }
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "done: {} {games} games, {positions} positions in {secs:.0} s ({:.1} positions/s), W/D/L {wins}/{draws}/{losses}",
        variant.name(),
        positions as f64 / secs.max(1e-9)
    );
    Ok(())
}
