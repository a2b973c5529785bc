//! `menagerie match`: engines against each other in any Menagerie variant,
//! refereed by Menagerie's rules (see the `menagerie-tournament` crate).

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use menagerie_app::VariantRef;
use menagerie_tournament::{
    Adjudication, Conditions, DrawRule, EngineConfig, Event, MatchConfig, MatchVariant, Opening, Protocol, ResignRule,
    Score, Sprt, SprtState, Standings, TimeControl, Tournament, openings,
};
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Options of `menagerie match`.
#[derive(Args, Clone, Debug)]
pub(crate) struct MatchArgs {
    /// An engine, as one argument of space-separated KEY=VALUE pairs:
    /// `cmd=PATH` (required), `name=NAME`, `proto=uci|xboard` (default uci),
    /// `arg=ARG` (repeatable), `dir=DIR`, `option.NAME=VALUE` (UCI
    /// setoption / XBoard option, repeatable; a UCI option the engine does
    /// not list is an error), `variant.OURS=THEIRS` (the engine's name for a variant,
    /// e.g. `variant.camel-rhino-plain=camelrhinoplain`), and the engine's
    /// own limit for matches at odds, instead of the match's: `tc=`,
    /// `movetime=`, `nodes=` or `depth=` (as the options of the same names,
    /// e.g. `nodes=10000` against a `--nodes 50000` opponent). Double quotes
    /// group a pair with spaces: `"option.Skill Level=3"`. Give it once per
    /// engine, at least twice; every pair of engines meets.
    #[arg(long = "engine", value_name = "SPEC", required = true)]
    engines: Vec<String>,
    /// Variant played: a compiled one (chess, alpaca, alpaca2,
    /// alpaca-samefile, alseid, alseid-weak, camel-rhino, chess960; the
    /// test-only camel-rhino-plain with MENAGERIE_TEST_VARIANTS=1) or one defined as data — built in (alpaca960,
    /// alseid960, makruk, shatranj, amazon, nightrider, grasshopper,
    /// knightmate, capablanca, embassy, janus, chancellor, courier, shako,
    /// seirawan, seirawan960) or loaded with
    /// --variants FILE. Data variants are played by UCI engines (not
    /// XBoard) told `UCI_Variant`, and `UCI_Chess960` for a Chess960 one
    /// (e.g. Fairy-Stockfish; for a loaded file also give
    /// `option.VariantPath=FILE`), refereed by
    /// Fairy-Stockfish's rules including its optional game ends (n-fold
    /// repetition, n-move rule, counting).
    #[arg(long, short, default_value = "chess")]
    variant: String,
    /// Clock per side: [MOVES/]SECONDS[+INCREMENT], e.g. 10+0.1, 40/60, 2:00+1.
    #[arg(long, group = "limit")]
    tc: Option<String>,
    /// Fixed time per move, in seconds.
    #[arg(long, group = "limit")]
    movetime: Option<f64>,
    /// Fixed nodes per move (UCI engines only).
    #[arg(long, group = "limit")]
    nodes: Option<u64>,
    /// Fixed depth per move.
    #[arg(long, group = "limit")]
    depth: Option<u32>,
    /// Who meets whom: `round-robin` (every pair of engines) or `gauntlet`
    /// (the first --engine against each of the others).
    #[arg(long, value_enum, default_value_t = TournamentArg::RoundRobin)]
    tournament: TournamentArg,
    /// Games per pair of engines in each round.
    #[arg(long, default_value_t = 2)]
    games: u32,
    /// Rounds: the whole schedule is played this many times, going on with
    /// the next openings.
    #[arg(long, default_value_t = 1)]
    rounds: u32,
    /// Games played with each opening before the next, colours alternating
    /// (2: each opening with both colours; 1: a new opening every game).
    #[arg(long, default_value_t = 2)]
    repeat: u32,
    /// Order of the openings: `sequential` (as in the file) or `random`
    /// (shuffled with --seed).
    #[arg(long, value_enum, default_value_t = OrderArg::Sequential)]
    openings_order: OrderArg,
    /// Seed of --openings-order random (default: drawn from the clock and
    /// printed, so a match can be replayed).
    #[arg(long)]
    seed: Option<u64>,
    /// Games played at the same time.
    #[arg(long, short, default_value_t = 1)]
    concurrency: usize,
    /// Openings: an EPD file (one position per line) or a PGN file (`.pgn`).
    /// Default: the variant's start position.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// From PGN openings, play at most this many plies of each game.
    #[arg(long)]
    plies: Option<usize>,
    /// Write every game to this PGN file (in the order they finish).
    #[arg(long)]
    pgn_out: Option<PathBuf>,
    /// Resign adjudication: `movecount=N,score=CP` — both engines report at
    /// least CP against one side for N moves each.
    #[arg(long, value_name = "movecount=N,score=CP")]
    resign: Option<String>,
    /// Draw adjudication: `movenumber=M,movecount=N,score=CP` — from move M,
    /// both engines report |score| ≤ CP for N moves each.
    #[arg(long, value_name = "movenumber=M,movecount=N,score=CP")]
    draw: Option<String>,
    /// Adjudicate a draw when a game reaches this many full moves.
    #[arg(long)]
    max_moves: Option<u32>,
    /// Sequential probability ratio test, stops when it decides (two engines):
    /// `elo0=E0,elo1=E1[,alpha=A][,beta=B]` (alpha and beta default to 0.05).
    #[arg(long, value_name = "elo0=E0,elo1=E1,alpha=A,beta=B")]
    sprt: Option<String>,
    /// Milliseconds an engine may overrun its clock before it loses on time.
    #[arg(long, default_value_t = 100)]
    time_margin: u64,
    /// Seconds to wait for a move not limited by a clock (fixed nodes or depth).
    #[arg(long, default_value_t = 60.0)]
    move_timeout: f64,
    /// PGN `Event` tag.
    #[arg(long, default_value = "Menagerie match")]
    event: String,
    /// PGN `Site` tag.
    #[arg(long, default_value = "?")]
    site: String,
    /// No progress bar or per-game lines; only the final table (with
    /// --json: only the final standings object).
    #[arg(long)]
    quiet: bool,
}

/// `--tournament`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum TournamentArg {
    RoundRobin,
    Gauntlet,
}

/// `--openings-order`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum OrderArg {
    Sequential,
    Random,
}

/// Runs the match; exit 0 when it was played to the end or the SPRT decided.
pub(crate) fn run(args: MatchArgs) -> Result<ExitCode> {
    let (config, seed) = build(&args)?;
    if let Some(seed) = seed
        && !args.quiet
        && !crate::ui::json()
    {
        println!("Openings in random order, --seed {seed}");
    }
    let mut pgn_out = match &args.pgn_out {
        Some(p) => Some(File::create(p).with_context(|| format!("cannot write {}", p.display()))?),
        None => None,
    };
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let total = menagerie_tournament::schedule(&config).len() as u64;
    let as_json = crate::ui::json();
    let bar = if args.quiet || !crate::ui::progress_allowed() {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {elapsed_precise} (eta {eta})  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let say = |line: String| {
        if args.quiet {
            return;
        }
        // A reader that went away (`| head`) does not stop the match.
        if bar.is_hidden() {
            let _ = writeln!(std::io::stdout(), "{line}");
        } else {
            bar.suspend(|| {
                let _ = writeln!(std::io::stdout(), "{line}");
            });
        }
    };
    let stop = AtomicBool::new(false);
    let mut write_error = None;
    let standings = menagerie_tournament::run(&config, &stop, |event| match event {
        Event::Started(p) => {
            if !as_json {
                say(format!("Started game {} of {total} ({} vs {})", p.number, names[p.white], names[p.black]))
            }
        }
        Event::Finished { pairing: p, record, standings } => {
            if as_json {
                let game = serde_json::json!({
                    "type": "game", "number": p.number, "white": names[p.white], "black": names[p.black],
                    "result": record.result().to_string(), "termination": record.termination.describe(),
                });
                say(game.to_string());
            } else {
                say(format!(
                    "Finished game {} ({} vs {}): {} {{{}}}",
                    p.number,
                    names[p.white],
                    names[p.black],
                    record.result(),
                    record.termination.describe()
                ));
            }
            if let Some(f) = pgn_out.as_mut() {
                let text = record.pgn.to_pgn();
                if let Err(e) = f.write_all(text.as_bytes()).and_then(|()| f.flush()) {
                    write_error.get_or_insert(e);
                }
            }
            bar.inc(1);
            bar.set_message(summary_line(&names, standings));
        }
    });
    bar.finish_and_clear();
    if let Some(e) = write_error {
        bail!("writing the PGN file: {e}");
    }
    let mut out = std::io::stdout().lock();
    if as_json {
        writeln!(out, "{}", json(&names, &standings, &config, seed))?;
    } else {
        write!(out, "{}", table(&names, &standings, &config))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A one-line summary for the progress bar.
fn summary_line(names: &[String], s: &Standings) -> String {
    if names.len() == 2 {
        let sc = s.scores[0][1];
        let mut line = format!(
            "{}: +{} ={} -{}  {:.1}%  Elo {}",
            names[0],
            sc.wins,
            sc.draws,
            sc.losses,
            sc.fraction() * 100.0,
            elo_text(&sc)
        );
        if let Some((_, llr)) = s.sprt {
            line.push_str(&format!("  LLR {llr:.2}"));
        }
        line
    } else {
        format!("{} games", s.finished)
    }
}

/// An Elo difference with its 95 % interval: `+12.3 ± 30.1`, or where the
/// interval has one infinite end (near or at a 0 % or 100 % score) its
/// finite end: `-676.1 (< -536.1)`, `+inf (> +140.2)` for 10 wins in 10
/// games; `-` before any game.
fn elo_text(score: &Score) -> String {
    if score.games() == 0 {
        return "-".into();
    }
    let (elo, lo, hi) = score.elo_interval();
    // Not "-0.0" for an even score.
    let elo = if elo.abs() < 0.05 { 0.0 } else { elo };
    let e = if elo.is_finite() {
        format!("{elo:+.1}")
    } else if elo > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    };
    match (lo.is_finite(), hi.is_finite()) {
        (true, true) => format!("{e} ± {:.1}", (hi - lo) / 2.0),
        (false, true) => format!("{e} (< {hi:+.1})"),
        (true, false) => format!("{e} (> {lo:+.1})"),
        (false, false) => format!("{e} ± inf"),
    }
}

/// The final table: one row per engine (its score against all others),
/// and for a two-engine match the Elo difference, LOS and SPRT.
fn table(names: &[String], s: &Standings, config: &MatchConfig) -> String {
    let mut out = String::new();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(6).max(6);
    out.push_str(&format!(
        "{:<width$}  {:>5}  {:>6}  {:>5}  {:>5}  {:>5}  {:>7}  {:>17}  {:>6}\n",
        "Engine", "Games", "Points", "Wins", "Draws", "Losses", "Score", "Elo (95%)", "LOS"
    ));
    for (i, n) in names.iter().enumerate() {
        let t = s.total(i);
        out.push_str(&format!(
            "{n:<width$}  {:>5}  {:>6.1}  {:>5}  {:>5}  {:>5}  {:>6.1}%  {:>17}  {:>5.1}%\n",
            t.games(),
            t.points(),
            t.wins,
            t.draws,
            t.losses,
            t.fraction() * 100.0,
            elo_text(&t),
            t.los() * 100.0
        ));
    }
    let ends: Vec<String> = s.terminations.iter().map(|(t, n)| format!("{t} {n}")).collect();
    out.push_str(&format!(
        "{} of {} games, {} {}, {}; ended: {}\n",
        s.finished,
        s.scheduled,
        config.variant.name(),
        time_text(config),
        if config.concurrency > 1 { format!("{} at a time", config.concurrency) } else { "one at a time".into() },
        if ends.is_empty() { "-".into() } else { ends.join(", ") }
    ));
    if let (Some(t), Some((state, llr))) = (config.sprt, s.sprt) {
        let (lo, hi) = t.bounds();
        let verdict = match state {
            SprtState::AcceptH1 => "H1 accepted",
            SprtState::AcceptH0 => "H0 accepted",
            SprtState::Continue => "no decision yet",
        };
        out.push_str(&format!(
            "SPRT elo0={} elo1={} alpha={} beta={}: LLR {llr:.2} ({lo:.2}, {hi:.2}), {verdict}\n",
            t.elo0, t.elo1, t.alpha, t.beta
        ));
    }
    out
}

fn json(names: &[String], s: &Standings, config: &MatchConfig, seed: Option<u64>) -> String {
    let engines: Vec<serde_json::Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let t = s.total(i);
            let (elo, err) = t.elo();
            let (_, lower, upper) = t.elo_interval();
            serde_json::json!({
                "name": n, "games": t.games(), "wins": t.wins, "draws": t.draws, "losses": t.losses,
                "points": t.points(), "score": t.fraction(),
                "elo": elo.is_finite().then_some(elo), "elo_error": err.is_finite().then_some(err),
                "elo_lower": lower.is_finite().then_some(lower), "elo_upper": upper.is_finite().then_some(upper),
                "los": t.los(),
            })
        })
        .collect();
    let sprt = match (config.sprt, s.sprt) {
        (Some(t), Some((state, llr))) => serde_json::json!({
            "elo0": t.elo0, "elo1": t.elo1, "alpha": t.alpha, "beta": t.beta,
            "llr": llr, "lower": t.bounds().0, "upper": t.bounds().1,
            "state": match state { SprtState::AcceptH1 => "H1", SprtState::AcceptH0 => "H0", SprtState::Continue => "continue" },
        }),
        _ => serde_json::Value::Null,
    };
    let ends: serde_json::Map<String, serde_json::Value> =
        s.terminations.iter().map(|(t, n)| (t.clone(), serde_json::json!(n))).collect();
    serde_json::json!({
        "type": "match", "variant": config.variant.name(), "time_control": time_text(config),
        "finished": s.finished, "scheduled": s.scheduled, "engines": engines,
        "terminations": ends, "sprt": sprt, "seed": seed,
    })
    .to_string()
}

/// The match configuration from the command line, and the seed of a
/// random opening order.
fn build(args: &MatchArgs) -> Result<(MatchConfig, Option<u64>)> {
    let variant = match crate::local::catalogue().find(&args.variant)? {
        VariantRef::Compiled(v) => MatchVariant::Compiled(v),
        VariantRef::Data(def) => MatchVariant::Data(def),
    };
    if args.engines.len() < 2 {
        bail!("a match needs at least two --engine");
    }
    let mut engines = args.engines.iter().map(|e| engine(e)).collect::<Result<Vec<_>>>()?;
    if let MatchVariant::Data(def) = &variant
        && let Some(e) = engines.iter().find(|e| e.protocol == Protocol::Xboard)
    {
        bail!(
            "engine '{}' speaks XBoard: {} is a variant defined as data, which matches play with UCI engines only",
            e.name,
            def.name
        );
    }
    // Equal names would make the table and PGN ambiguous: number them.
    for i in 0..engines.len() {
        let same: Vec<usize> = (0..engines.len()).filter(|&j| engines[j].name == engines[i].name).collect();
        if same.len() > 1 {
            for (k, &j) in same.iter().enumerate() {
                engines[j].name = format!("{}-{}", engines[j].name, k + 1);
            }
        }
    }
    let time = match time_control(args.tc.as_deref(), args.movetime, args.nodes, args.depth)? {
        Some(t) => t,
        // Every engine has its own: the match's is never used.
        None => match engines.iter().map(|e| e.time).collect::<Option<Vec<_>>>().and_then(|t| t.first().copied()) {
            Some(t) => t,
            None => bail!(
                "give a time control: --tc, --movetime, --nodes or --depth (or tc=, movetime=, nodes= or depth= in every --engine)"
            ),
        },
    };
    let mut openings = match &args.openings {
        Some(p) => openings::read(p, &variant, args.plies)?,
        None => vec![Opening::start_of(&variant)],
    };
    let seed = (args.openings_order == OrderArg::Random).then(|| {
        args.seed.unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
        })
    });
    if let Some(seed) = seed {
        openings::shuffle(&mut openings, seed);
    }
    let sprt = args.sprt.as_deref().map(sprt).transpose()?;
    if sprt.is_some() && engines.len() != 2 {
        bail!("--sprt needs exactly two engines");
    }
    let adjudication = Adjudication {
        resign: args
            .resign
            .as_deref()
            .map(|r| -> Result<ResignRule> {
                let kv = pairs(r, &["movecount", "score"])?;
                Ok(ResignRule { moves: num(&kv, "movecount", 3.0)? as u32, score: num(&kv, "score", 1000.0)? as i32 })
            })
            .transpose()?,
        draw: args
            .draw
            .as_deref()
            .map(|r| -> Result<DrawRule> {
                let kv = pairs(r, &["movenumber", "movecount", "score"])?;
                Ok(DrawRule {
                    from_move: num(&kv, "movenumber", 40.0)? as u32,
                    moves: num(&kv, "movecount", 8.0)? as u32,
                    score: num(&kv, "score", 10.0)? as i32,
                })
            })
            .transpose()?,
        max_moves: args.max_moves,
    };
    if args.games == 0 || args.rounds == 0 || args.repeat == 0 {
        bail!("--games, --rounds and --repeat must be at least 1");
    }
    let tournament = match args.tournament {
        TournamentArg::RoundRobin => Tournament::RoundRobin,
        TournamentArg::Gauntlet => Tournament::Gauntlet,
    };
    if !(args.move_timeout.is_finite() && args.move_timeout > 0.0 && args.move_timeout < 1e6) {
        bail!("--move-timeout must be a positive number of seconds");
    }
    Ok((
        MatchConfig {
            engines,
            variant,
            openings,
            tournament,
            games: args.games,
            rounds: args.rounds,
            repeat: args.repeat,
            concurrency: args.concurrency.clamp(1, 256),
            conditions: Conditions {
                time,
                adjudication,
                time_margin: Duration::from_millis(args.time_margin),
                move_timeout: Duration::from_secs_f64(args.move_timeout),
                event: args.event.clone(),
                site: args.site.clone(),
            },
            sprt,
        },
        seed,
    ))
}

/// The time control of `--tc`, `--movetime`, `--nodes` or `--depth` (at
/// most one is given), checked; None when none is.
fn time_control(
    tc: Option<&str>,
    movetime: Option<f64>,
    nodes: Option<u64>,
    depth: Option<u32>,
) -> Result<Option<TimeControl>> {
    Ok(Some(match (tc, movetime, nodes, depth) {
        (Some(tc), ..) => TimeControl::parse_clock(tc)?,
        (_, Some(t), ..) if t.is_finite() && t > 0.0 && t < 1e6 => TimeControl::MoveTime(Duration::from_secs_f64(t)),
        (_, Some(t), ..) => bail!("movetime must be a positive number of seconds, got {t}"),
        (_, _, Some(n), _) if n > 0 => TimeControl::Nodes(n),
        (_, _, _, Some(d)) if (1..=200).contains(&d) => TimeControl::Depth(d),
        (_, _, Some(_), _) | (_, _, _, Some(_)) => bail!("nodes and depth must be positive (depth at most 200)"),
        _ => return Ok(None),
    }))
}

/// The match's time control as shown in its summary: each engine's where
/// some play at odds.
fn time_text(config: &MatchConfig) -> String {
    if config.engines.iter().all(|e| e.time.is_none_or(|t| t == config.conditions.time)) {
        return config.conditions.time.to_string();
    }
    let each: Vec<String> =
        config.engines.iter().map(|e| format!("{} {}", e.name, e.time.unwrap_or(config.conditions.time))).collect();
    each.join(" against ")
}

/// Reads an engine spec (see [`MatchArgs::engines`]).
fn engine(spec: &str) -> Result<EngineConfig> {
    let mut config: Option<EngineConfig> = None;
    let mut rest = Vec::new();
    let words = words(spec)?;
    for word in &words {
        let (k, v) = word.split_once('=').with_context(|| format!("engine spec: '{word}' is not KEY=VALUE"))?;
        if k == "cmd" {
            config = Some(EngineConfig::uci(v));
        } else {
            rest.push((k, v));
        }
    }
    let mut c = config.with_context(|| format!("engine spec '{spec}' has no cmd=PATH"))?;
    for (k, v) in rest {
        match k {
            "name" => c.name = v.to_string(),
            "proto" | "protocol" => {
                c.protocol = match v {
                    "uci" => Protocol::Uci,
                    "xboard" | "cecp" => Protocol::Xboard,
                    _ => bail!("engine spec: proto must be uci or xboard, got '{v}'"),
                }
            }
            "arg" => c.args.push(v.to_string()),
            "dir" => c.dir = Some(PathBuf::from(v)),
            "tc" | "movetime" | "nodes" | "depth" => {
                if c.time.is_some() {
                    bail!("engine spec: give at most one of tc, movetime, nodes and depth");
                }
                let number = || -> Result<f64> {
                    v.parse::<f64>()
                        .ok()
                        .filter(|n| n.is_finite())
                        .with_context(|| format!("engine spec: {k}={v} is not a number"))
                };
                c.time = match k {
                    "tc" => time_control(Some(v), None, None, None)?,
                    "movetime" => time_control(None, Some(number()?), None, None)?,
                    "nodes" => time_control(
                        None,
                        None,
                        Some(v.parse().with_context(|| format!("engine spec: nodes={v} is not a count of nodes"))?),
                        None,
                    )?,
                    _ => time_control(
                        None,
                        None,
                        None,
                        Some(v.parse().with_context(|| format!("engine spec: depth={v} is not a depth"))?),
                    )?,
                };
            }
            _ => {
                if let Some(name) = k.strip_prefix("option.") {
                    c.options.push((name.to_string(), v.to_string()));
                } else if let Some(ours) = k.strip_prefix("variant.") {
                    // Test-only rule sets may be named too: the mapping is
                    // used only when one is played (MENAGERIE_TEST_VARIANTS).
                    let name = match crate::local::catalogue().find(ours) {
                        Ok(VariantRef::Compiled(id)) => id.name().to_string(),
                        Ok(VariantRef::Data(def)) => def.name.clone(),
                        Err(_) => match menagerie_variants::VariantId::from_name_including_tests(ours) {
                            Some(id) => id.name().to_string(),
                            None => bail!("engine spec: unknown variant '{ours}' in '{k}'"),
                        },
                    };
                    c.variant_names.push((name, v.to_string()));
                } else {
                    bail!(
                        "engine spec: unknown key '{k}' (cmd, name, proto, arg, dir, option.NAME, variant.NAME, tc, movetime, nodes, depth)"
                    );
                }
            }
        }
    }
    Ok(c)
}

/// Splits an engine spec into words at spaces outside double quotes
/// (`"option.Skill Level=3"` is one word, without its quotes).
fn words(spec: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in spec.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if quoted {
        bail!("engine spec: unbalanced '\"' in '{spec}'");
    }
    if !word.is_empty() {
        out.push(word);
    }
    Ok(out)
}

/// `key=value,key=value` with only the `allowed` keys.
fn pairs<'a>(text: &'a str, allowed: &[&str]) -> Result<Vec<(&'a str, &'a str)>> {
    let mut out = Vec::new();
    for part in text.split([',', ' ']).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').with_context(|| format!("'{part}' is not KEY=VALUE"))?;
        if !allowed.contains(&k) {
            bail!("unknown key '{k}' (expected {})", allowed.join(", "));
        }
        out.push((k, v));
    }
    Ok(out)
}

fn num(kv: &[(&str, &str)], key: &str, default: f64) -> Result<f64> {
    match kv.iter().find(|(k, _)| *k == key) {
        Some((_, v)) => {
            let x: f64 = v.parse().with_context(|| format!("{key}: '{v}' is not a number"))?;
            if !(0.0..=1e9).contains(&x) {
                bail!("{key}: {v} is out of range");
            }
            Ok(x)
        }
        None => Ok(default),
    }
}

fn sprt(text: &str) -> Result<Sprt> {
    let kv = pairs(text, &["elo0", "elo1", "alpha", "beta"])?;
    let get = |k: &str, d: Option<f64>| -> Result<f64> {
        match kv.iter().find(|(key, _)| *key == k) {
            Some((_, v)) => v.parse::<f64>().with_context(|| format!("SPRT {k}: '{v}' is not a number")),
            None => d.with_context(|| format!("SPRT needs {k}")),
        }
    };
    let t = Sprt {
        elo0: get("elo0", None)?,
        elo1: get("elo1", None)?,
        alpha: get("alpha", Some(0.05))?,
        beta: get("beta", Some(0.05))?,
    };
    t.validate().map_err(anyhow::Error::msg)?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use menagerie_variants::VariantId;

    #[test]
    fn elo_text_shows_the_finite_end_of_a_one_sided_interval() {
        let s = |wins, draws, losses| elo_text(&Score { wins, draws, losses });
        assert_eq!(s(30, 40, 30), "+0.0 ± 53.2");
        assert_eq!(s(1, 2, 97), "-676.1 (< -536.1)");
        assert_eq!(s(97, 2, 1), "+676.1 (> +536.1)");
        // A perfect or zero score: the exact binomial bound, never `inf ± inf`.
        assert_eq!(s(10, 0, 0), "+inf (> +140.2)");
        assert_eq!(s(0, 0, 10), "-inf (< -140.2)");
        assert_eq!(s(0, 0, 1), "-inf (< +636.4)");
        assert_eq!(s(0, 0, 0), "-");
    }

    #[test]
    fn engine_specs() {
        let e = engine("cmd=/usr/games/stockfish name=SF option.Hash=16 \"option.Skill Level=3\" option.UCI_Elo=1400")
            .unwrap();
        assert_eq!(e.name, "SF");
        assert_eq!(
            e.options,
            vec![("Hash".into(), "16".into()), ("Skill Level".into(), "3".into()), ("UCI_Elo".into(), "1400".into())]
        );
        let e = engine("cmd=fsf proto=xboard variant.camel-rhino-plain=camelrhinoplain arg=--x").unwrap();
        assert_eq!(e.protocol, Protocol::Xboard);
        assert_eq!(e.variant_name(VariantId::CamelRhinoPlain.name()), "camelrhinoplain");
        assert_eq!(e.args, vec!["--x".to_string()]);
        // Data variants are named too, in any letter case.
        let e = engine("cmd=fsf variant.Capablanca=capa").unwrap();
        assert_eq!(e.variant_name("capablanca"), "capa");
        assert_eq!(e.variant_name("makruk"), "makruk");
        for bad in ["name=x", "cmd=a proto=cecp3", "cmd=a colour=red", "cmd=a variant.nope=x", "cmd", "cmd=a \"name=b"]
        {
            assert!(engine(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sprt_specs() {
        let t = sprt("elo0=0,elo1=5").unwrap();
        assert_eq!((t.alpha, t.beta), (0.05, 0.05));
        assert!(sprt("elo0=5,elo1=0").is_err());
        assert!(sprt("elo1=5").is_err());
        assert!(sprt("elo0=0,elo1=5,gamma=1").is_err());
    }
}
