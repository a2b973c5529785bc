//! XBoard/CECP protocol version 2.
//!
//! Variants are announced with `feature variants=...` (`normal` is orthodox
//! chess); on `variant NAME` the engine tells XBoard the board size, the
//! piece letters (`setup`) and the fairy pieces' Betza movement (`piece`),
//! so XBoard can show and check them. Prelude moves of the gating variants
//! (`accept`, `decline`, `A@g`) are ordinary moves.

use crate::session::{Session, send};
use menagerie_notation::{fen, parse_move, uci};
use menagerie_pieces::PieceKind;
use menagerie_search::{Info, Limits, Score};
use menagerie_variants::{AnyPosition, Game, Outcome, VariantId, WinReason};
use std::time::Duration;

struct Clock {
    /// Moves per session (0 = whole game), base, increment.
    mps: u32,
    base: Duration,
    inc: Duration,
    /// Fixed time per move (`st`).
    per_move: Option<Duration>,
    depth: Option<u32>,
    own: Option<Duration>,
    other: Option<Duration>,
}

fn xboard_name(v: VariantId) -> &'static str {
    if v == VariantId::Chess { "normal" } else { v.name() }
}

fn variant_from_xboard(name: &str) -> Option<VariantId> {
    let name = name.rsplit('_').next().unwrap_or(name);
    if name == "normal" { Some(VariantId::Chess) } else { VariantId::from_name(name) }
}

/// The `setup` and `piece` commands describing a variant to XBoard.
fn describe_variant(v: VariantId) -> Vec<String> {
    if v == VariantId::Chess {
        return Vec::new();
    }
    // XBoard's internal piece order; fairy pieces take slots whose pictures fit.
    const ORDER: &str = "PNBRQFEACWMOHIJGDVLSUK";
    let slot = |k: PieceKind| -> Option<usize> {
        let c = match k {
            PieceKind::Pawn => 'P',
            PieceKind::Knight => 'N',
            PieceKind::Bishop => 'B',
            PieceKind::Rook => 'R',
            PieceKind::Queen => 'Q',
            PieceKind::King => 'K',
            PieceKind::Alpaca => 'A',
            PieceKind::Alseid => 'S',
            PieceKind::Camel => 'C',
            PieceKind::Rhino => 'H',
            PieceKind::Zebra => 'J',
            PieceKind::Wazir => 'W',
        };
        ORDER.find(c)
    };
    let rules = v.rules();
    let mut white = vec!['.'; ORDER.len()];
    let mut kinds = rules.piece_kinds();
    if let Some(g) = rules.gating
        && !kinds.contains(&g.piece)
    {
        kinds.push(g.piece);
    }
    for &k in &kinds {
        if let Some(i) = slot(k) {
            white[i] = k.letter();
        }
    }
    let black: String = white.iter().map(|c| c.to_ascii_lowercase()).collect();
    let white: String = white.into_iter().collect();
    let (w, h) = v.size();
    let start = AnyPosition::start(v);
    let mut out = vec![format!("setup ({white}{black}) {w}x{h}+0_fairy {}", fen::format(&start))];
    for k in kinds {
        if !matches!(
            k,
            PieceKind::Pawn
                | PieceKind::Knight
                | PieceKind::Bishop
                | PieceKind::Rook
                | PieceKind::Queen
                | PieceKind::King
        ) {
            out.push(format!("piece {}& {}", k.letter(), k.movement().betza));
        }
    }
    out
}

fn result_line(o: Outcome) -> String {
    let comment = match o {
        Outcome::Win { winner, reason: WinReason::Checkmate } => format!("{} mates", winner.name()),
        Outcome::Win { winner, reason: WinReason::NoCamelOrRhino } => {
            format!("{} has no Camel or Rhino", winner.flip().name())
        }
        Outcome::Draw(_) => o.describe(),
    };
    format!("{} {{{comment}}}", o.result())
}

fn game_outcome(s: &Session) -> Option<Outcome> {
    let mut g = Game::new(s.start);
    for &m in &s.moves {
        g.play(m).ok()?;
    }
    g.outcome()
}

/// The score of a thinking line: centipawns, or (CECP §10) 100000 + N for
/// mate in N moves and -100000 - N for mated in N moves.
fn xboard_score(score: Score) -> i32 {
    match score {
        Score::Cp(c) => c,
        Score::Mate(m) if m > 0 => 100_000 + m,
        Score::Mate(m) => -100_000 + m,
    }
}

/// A thinking line: `depth score centiseconds nodes pv`.
fn thinking(v: VariantId, i: &Info) -> String {
    let score = xboard_score(i.score);
    let pv: Vec<String> = i.pv.iter().map(|&m| uci::format(v, m)).collect();
    format!("{} {} {} {} {}", i.depth, score, i.time_ms / 10, i.nodes, pv.join(" "))
}

/// Runs the XBoard protocol until `quit` or end of input.
pub fn run(s: &mut Session, lines: &mut dyn Iterator<Item = String>) {
    let mut force = false;
    let mut post = true;
    let mut engine_white = false;
    let mut clock = Clock {
        mps: 0,
        base: Duration::from_secs(300),
        inc: Duration::ZERO,
        per_move: None,
        depth: None,
        own: None,
        other: None,
    };
    let mut analyzing = false;
    let think = |s: &mut Session, clock: &Clock, post: bool, analyze: bool| {
        let v = s.variant;
        let mut limits = Limits::default();
        if analyze {
            limits.infinite = true;
        } else if let Some(t) = clock.per_move {
            limits.movetime = Some(t);
        } else {
            let own = clock.own.unwrap_or(clock.base);
            let white = s.position().side_to_move() == menagerie_pieces::Color::White;
            if white {
                limits.wtime = Some(own);
                limits.winc = Some(clock.inc);
            } else {
                limits.btime = Some(own);
                limits.binc = Some(clock.inc);
            }
            if clock.mps > 0 {
                let played = (s.moves.len() / 2) as u32;
                limits.movestogo = Some(clock.mps - played % clock.mps);
            }
        }
        limits.depth = clock.depth;
        let start = s.start;
        let moves = s.moves.clone();
        let quiet = s.quiet_abort.clone();
        let slot = s.engine_move.clone();
        s.go(
            limits,
            false,
            move |info| {
                if post && info.multipv == 1 {
                    send(&thinking(v, &info));
                }
            },
            move |r| {
                if analyze || quiet.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                match r.best {
                    Some(m) => {
                        if let Ok(mut slot) = slot.lock() {
                            *slot = Some(m);
                        }
                        send(&format!("move {}", uci::format(v, m)));
                        let mut g = Game::new(start);
                        for &x in &moves {
                            let _ = g.play(x);
                        }
                        if g.play(m).is_ok()
                            && let Some(o) = g.outcome()
                        {
                            send(&result_line(o));
                        }
                    }
                    None => {
                        let mut g = Game::new(start);
                        for &x in &moves {
                            let _ = g.play(x);
                        }
                        if let Some(o) = g.outcome() {
                            send(&result_line(o));
                        }
                    }
                }
            },
        );
    };
    // The engine's own move is added to the game before the next command is
    // handled (the search thread records it before announcing it).
    let mut pending_engine_move = false;
    for line in lines {
        let line = line.trim().to_string();
        if line.is_empty() {
            continue;
        }
        // Sync the engine's own move into the game before handling input:
        // once it is announced (the slot is filled before the `move` line
        // goes out), the search thread is only finishing up.
        if pending_engine_move && (!s.searching() || engine_move_announced(s)) {
            s.wait_search();
            pending_engine_move = false;
            sync_engine_move(s);
        }
        let mut words = line.split_whitespace();
        let cmd = words.next().unwrap_or("");
        let args: Vec<&str> = words.collect();
        match cmd {
            "protover" => {
                let variants: Vec<&str> = VariantId::ALL.iter().map(|&v| xboard_name(v)).collect();
                send(&format!(
                    "feature done=0 myname=\"Menagerie {}\" variants=\"{}\" setboard=1 usermove=1 ping=1 sigint=0 sigterm=0 reuse=1 analyze=1 colors=0 memory=1 smp=1 name=0 nps=0 debug=1",
                    env!("CARGO_PKG_VERSION"),
                    variants.join(",")
                ));
                send("feature done=1");
            }
            "accepted" | "rejected" | "computer" | "name" | "rating" | "ics" | "hard" | "easy" | "random" | "bk"
            | "hint" | "draw" | "otim" => {
                if cmd == "otim" {
                    clock.other = args.first().and_then(|t| centiseconds(t));
                }
            }
            "new" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                // A move the old game's search announced must not leak into the new game.
                pending_engine_move = false;
                discard_engine_move(s);
                s.engine.new_game();
                s.set_variant(VariantId::Chess);
                force = false;
                engine_white = false;
                clock.depth = None;
                analyzing = false;
            }
            "variant" => match args.first().and_then(|n| variant_from_xboard(n)) {
                Some(v) => {
                    s.set_variant(v);
                    for l in describe_variant(v) {
                        send(&l);
                    }
                }
                None => send(&format!("Error (unknown variant): {}", args.join(" "))),
            },
            "force" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                force = true;
            }
            "go" => {
                force = false;
                engine_white = s.position().side_to_move() == menagerie_pieces::Color::White;
                think(s, &clock, post, false);
                pending_engine_move = true;
            }
            "playother" => {
                force = false;
                engine_white = s.position().side_to_move() != menagerie_pieces::Color::White;
            }
            "white" | "black" => {}
            "level" => {
                if let [mps, base, inc, ..] = args.as_slice() {
                    clock.mps = mps.parse().unwrap_or(0);
                    let secs = match base.split_once(':') {
                        Some((m, sec)) => m
                            .parse::<u64>()
                            .unwrap_or(0)
                            .saturating_mul(60)
                            .saturating_add(sec.parse::<u64>().unwrap_or(0)),
                        None => base.parse::<u64>().unwrap_or(5).saturating_mul(60),
                    };
                    clock.base = Duration::from_secs(secs);
                    clock.inc = seconds(inc, 0.0).unwrap_or(Duration::ZERO);
                    clock.per_move = None;
                }
            }
            "st" => clock.per_move = args.first().and_then(|t| seconds(t, 0.01)),
            "sd" => clock.depth = args.first().and_then(|d| d.parse::<u32>().ok()).map(|d| d.clamp(1, 100)),
            "time" => clock.own = args.first().and_then(|t| centiseconds(t)),
            "memory" => {
                if let Some(mb) = args.first().and_then(|m| m.parse::<usize>().ok())
                    && let Err(e) = s.set_hash(mb.clamp(1, 65536))
                {
                    send(&format!("telluser {e}"));
                }
            }
            "cores" => {
                if let Some(n) = args.first().and_then(|m| m.parse::<usize>().ok()) {
                    s.engine.set_threads(n);
                }
            }
            "post" => post = true,
            "nopost" => post = false,
            "ping" => {
                // While analysing, answer at once and go on; while thinking on
                // its own move, answer only after the move (CECP: ping), but
                // without cutting the search short.
                if !analyzing {
                    s.wait_search();
                }
                if pending_engine_move && !s.searching() {
                    pending_engine_move = false;
                    sync_engine_move(s);
                }
                send(&format!("pong {}", args.first().unwrap_or(&"")));
            }
            "setboard" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                pending_engine_move = false;
                discard_engine_move(s);
                let f = args.join(" ");
                if let Err(e) = s.set_game(Some(&f), &[]) {
                    send(&format!("tellusererror Illegal position: {e}"));
                }
                if analyzing {
                    think(s, &clock, true, true);
                }
            }
            "usermove" => {
                let text = args.first().copied().unwrap_or("");
                s.stop_and_wait();
                if pending_engine_move {
                    pending_engine_move = false;
                    sync_engine_move(s);
                }
                let pos = s.position();
                match parse_move(&pos, text) {
                    Ok(m) => {
                        let _ = s.push_move(m);
                        if let Some(o) = game_outcome(s) {
                            send(&result_line(o));
                        } else if analyzing {
                            think(s, &clock, true, true);
                        } else if !force {
                            let white = s.position().side_to_move() == menagerie_pieces::Color::White;
                            if white == engine_white {
                                think(s, &clock, post, false);
                                pending_engine_move = true;
                            }
                        }
                    }
                    Err(_) => send(&format!("Illegal move: {text}")),
                }
            }
            "?" => s.stop_and_wait(),
            "undo" | "remove" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                s.pop_move();
                if cmd == "remove" {
                    s.pop_move();
                }
                if analyzing {
                    think(s, &clock, true, true);
                }
            }
            "result" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                force = true;
            }
            "analyze" => {
                analyzing = true;
                think(s, &clock, true, true);
            }
            "exit" => {
                analyzing = false;
                s.stop_and_wait();
            }
            "." => {}
            "quit" => {
                s.quiet_abort.store(true, std::sync::atomic::Ordering::Relaxed);
                s.stop_and_wait();
                return;
            }
            _ => {
                // Protocol 1 clients send bare moves.
                let pos = s.position();
                if let Ok(m) = parse_move(&pos, cmd) {
                    let _ = s.push_move(m);
                } else {
                    send(&format!("Error (unknown command): {cmd}"));
                }
            }
        }
    }
    s.stop_and_wait();
}

/// A time in seconds (`st`, the increment of `level`), at least `min`;
/// None for text that is no number or too large a time.
fn seconds(text: &str, min: f64) -> Option<Duration> {
    let t = text.parse::<f64>().ok()?;
    Duration::try_from_secs_f64(if t.is_nan() { min } else { t.max(min) }).ok()
}

/// A clock reading in centiseconds (`time`, `otim`).
fn centiseconds(text: &str) -> Option<Duration> {
    text.parse::<u64>().ok().map(|cs| Duration::from_millis(cs.saturating_mul(10)))
}

/// True once the engine's search has announced its move.
fn engine_move_announced(s: &Session) -> bool {
    s.engine_move.lock().is_ok_and(|slot| slot.is_some())
}

/// Forgets a move the engine announced but that was not added to the game.
fn discard_engine_move(s: &mut Session) {
    if let Ok(mut slot) = s.engine_move.lock() {
        *slot = None;
    }
}

/// Applies the engine's announced move to the game once its search ended.
fn sync_engine_move(s: &mut Session) {
    let m = s.engine_move.lock().ok().and_then(|mut slot| slot.take());
    if let Some(m) = m {
        let _ = s.push_move(m);
    }
}
