#![allow(clippy::unwrap_used)]
//! End-to-end tests of `menagerie.v1.AnalysisService`: a real server on a loopback
//! port (`serve` with a shutdown future the test controls) and a real tonic
//! client. Covers every RPC, every error code with its details, deadlines,
//! cancellation (the CPU work must actually stop), concurrency, graceful
//! shutdown, health and reflection.
//!
//! Tests that measure the process's CPU time take [`CPU`] exclusively so
//! that no other test of this binary burns CPU meanwhile; the others share it.

mod common;

use menagerie_analysis_server::{AnalysisApi, Config, ServeError, serve};
use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard, mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Channel;
use tonic::{Code, Request, Status, Streaming};
use tonic_types::StatusExt;

/// Read: an ordinary test. Write: a test measuring CPU time.
static CPU: RwLock<()> = RwLock::const_new(());

async fn shared() -> RwLockReadGuard<'static, ()> {
    CPU.read().await
}

async fn exclusive() -> RwLockWriteGuard<'static, ()> {
    CPU.write().await
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POSITION3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
const STALEMATE: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
const FOOLS_MATE: [&str; 3] = ["f3", "e5", "g4"];

/// A server running on a loopback port.
struct TestServer {
    service: AnalysisApi,
    addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    serving: tokio::task::JoinHandle<Result<(), ServeError>>,
}

/// Test defaults: room for several jobs, two threads per job.
fn config() -> Config {
    let mut c = Config::defaults();
    c.max_jobs = 8;
    c.max_threads = 2;
    c.analysis_hash_mb = 16;
    c
}

/// A server started with `config` and a client of it, the CPU lock held
/// shared (see [`CPU`]).
async fn started(config: Config) -> (RwLockReadGuard<'static, ()>, TestServer, AnalysisServiceClient<Channel>) {
    let guard = shared().await;
    let server = start(config).await;
    let client = server.client().await;
    (guard, server, client)
}

/// A server started with `config` and a client of it, the CPU lock held
/// exclusively (a test measuring CPU time).
async fn started_exclusive(
    config: Config,
) -> (RwLockWriteGuard<'static, ()>, TestServer, AnalysisServiceClient<Channel>) {
    let guard = exclusive().await;
    let server = start(config).await;
    let client = server.client().await;
    (guard, server, client)
}

async fn start(config: Config) -> TestServer {
    start_with_grace(config, Duration::from_secs(30)).await
}

async fn start_with_grace(config: Config, grace: Duration) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = AnalysisApi::new(config);
    let (tx, rx) = oneshot::channel::<()>();
    let shutdown = async {
        let _ = rx.await;
    };
    let serving = tokio::spawn(serve(service.clone(), listener, shutdown, grace));
    TestServer { service, addr, shutdown: Some(tx), serving }
}

impl TestServer {
    async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr)).unwrap().connect().await.unwrap()
    }

    async fn client(&self) -> AnalysisServiceClient<Channel> {
        AnalysisServiceClient::new(self.channel().await)
    }

    fn running(&self) -> usize {
        self.service.jobs().running()
    }

    fn stopped_early(&self) -> u64 {
        self.service.jobs().stats.stopped_early.load(Ordering::Relaxed)
    }

    fn begin_shutdown(&mut self) {
        self.shutdown.take().unwrap().send(()).unwrap();
    }
}

fn pos(variant: &str, fen: &str, moves: &[&str]) -> Option<pb::Position> {
    Some(pb::Position {
        variant: variant.into(),
        fen: fen.into(),
        moves: moves.iter().map(|m| m.to_string()).collect(),
    })
}

fn start_pos() -> Option<pb::Position> {
    pos("chess", "", &[])
}

fn perft_req(position: Option<pb::Position>, depth: u32) -> pb::PerftRequest {
    pb::PerftRequest { position, depth, ..Default::default() }
}

fn analyze_req(position: Option<pb::Position>) -> pb::AnalyzeRequest {
    pb::AnalyzeRequest { position, ..Default::default() }
}

fn validate_req(position: Option<pb::Position>, mv: &str) -> pb::ValidateMoveRequest {
    pb::ValidateMoveRequest { position, r#move: mv.into() }
}

fn legal_req(position: Option<pb::Position>) -> pb::LegalMovesRequest {
    pb::LegalMovesRequest { position }
}

/// Everything a perft stream sent.
#[derive(Default, Debug)]
struct PerftRun {
    divides: Vec<pb::PerftDivide>,
    progress: Vec<pb::PerftProgress>,
    total: Option<pb::PerftTotal>,
}

impl PerftRun {
    fn total(&self) -> u64 {
        self.total.as_ref().unwrap().nodes
    }
    fn divide_map(&self) -> BTreeMap<String, u64> {
        self.divides.iter().map(|d| (d.r#move.clone(), d.nodes)).collect()
    }
}

async fn collect_perft(mut stream: Streaming<pb::PerftResponse>) -> Result<PerftRun, Status> {
    use pb::perft_response::Event;
    let mut run = PerftRun::default();
    while let Some(ev) = stream.message().await? {
        assert!(run.total.is_none(), "an event after the total: {ev:?}");
        match ev.event.unwrap() {
            Event::Divide(d) => run.divides.push(d),
            Event::Progress(p) => run.progress.push(p),
            Event::Total(t) => run.total = Some(t),
        }
    }
    assert!(run.total.is_some(), "the stream ended without a total");
    Ok(run)
}

async fn perft(client: &mut AnalysisServiceClient<Channel>, req: pb::PerftRequest) -> Result<PerftRun, Status> {
    collect_perft(client.perft(req).await?.into_inner()).await
}

/// Reads a stream until it fails, returning the status (panics if it ends cleanly).
async fn stream_error<T: std::fmt::Debug>(stream: &mut Streaming<T>) -> Status {
    loop {
        match stream.message().await {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the stream ended without an error"),
            Err(s) => return s,
        }
    }
}

/// The fields named by a status's BadRequest details.
fn bad_fields(s: &Status) -> Vec<String> {
    s.get_error_details()
        .bad_request()
        .map(|b| b.field_violations.iter().map(|v| v.field.clone()).collect())
        .unwrap_or_default()
}

fn assert_bad_field(r: Result<impl std::fmt::Debug, Status>, code: Code, field: &str) {
    let s = r.unwrap_err();
    assert_eq!(s.code(), code, "{s:?}");
    assert_eq!(bad_fields(&s), vec![field.to_string()], "{s:?}");
}

async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("gave up after 10 s waiting for {what}");
}

/// The process's CPU time (user + system), in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // Fields after the parenthesised command: state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')').unwrap() + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0 // USER_HZ is 100 on Linux
}

/// After a job was stopped: no job is admitted any more, and the process
/// stops burning CPU (a generous bound: a job left running would burn a
/// whole core, or two, in the idle second).
/// Starts `req` with a 300 ms deadline (too short for it to finish) and
/// asserts that it ends with DEADLINE_EXCEEDED and its work stops.
async fn assert_stopped_at_deadline(
    server: &TestServer,
    client: &mut AnalysisServiceClient<Channel>,
    req: pb::PerftRequest,
) {
    let before = server.stopped_early();
    let mut req = Request::new(req);
    req.set_timeout(Duration::from_millis(300));
    let mut stream = client.perft(req).await.unwrap().into_inner();
    let s = stream_error(&mut stream).await;
    assert_eq!(s.code(), Code::DeadlineExceeded, "{s:?}");
    assert_work_stops(server).await;
    assert!(server.stopped_early() > before);
}

async fn assert_work_stops(server: &TestServer) {
    wait_until("running jobs to reach 0", || server.running() == 0).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = cpu_seconds();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let burnt = cpu_seconds() - before;
    assert!(burnt < 0.5, "the process burnt {burnt:.2} s of CPU in an idle second: the job kept running");
}

/// A PerftBatch job of one EPD line.
fn epd_job(id: &str, epd: impl Into<String>) -> pb::PerftBatchRequest {
    pb::PerftBatchRequest { id: id.into(), epd: epd.into(), ..Default::default() }
}

// ---------------------------------------------------------------- ListVariants

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_variants_lists_every_variant() {
    let (_g, _server, mut client) = started(config()).await;
    let variants = client.list_variants(pb::ListVariantsRequest {}).await.unwrap().into_inner().variants;
    let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
    // The compiled variants, then those defined as data.
    assert_eq!(
        names[..8],
        ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino", "chess960"]
    );
    for data in ["makruk", "shatranj", "capablanca", "shako", "seirawan"] {
        assert!(names[8..].contains(&data), "{names:?}");
    }
    let (compiled, data) = variants.split_at(8);
    assert!(compiled.iter().all(|v| !v.defined_as_data) && data.iter().all(|v| v.defined_as_data));
    for v in data {
        assert!(!v.start_fen.is_empty() && v.summary.contains("defined as data") && !v.pieces.is_empty(), "{v:?}");
        for p in &v.pieces {
            assert!(p.letter.len() == 1 && p.letter.chars().all(|c| c.is_ascii_uppercase()), "{p:?}");
            // Reversi's discs never move: an empty Betza string.
            assert!(!p.name.is_empty() && (!p.betza.is_empty() || p.name == "immobile") && p.value == 0, "{p:?}");
        }
        let pioneer = ["alpaca960", "alseid960"].contains(&v.name.as_str());
        // A game with chess pawns lists their promotions (breakthrough,
        // clobber and the shogi family have none).
        let pawns = v.pieces.iter().any(|p| p.name == "pawn");
        assert!((!v.promotions.is_empty() || !pawns) && v.reserve_piece.is_empty() != pioneer, "{v:?}");
        let moves = client.legal_moves(legal_req(pos(&v.name, &v.start_fen, &[]))).await.unwrap().into_inner();
        assert!(!moves.moves.is_empty(), "{}", v.name);
    }
    for v in compiled {
        assert!(!v.pieces.is_empty() && !v.start_fen.is_empty() && !v.summary.is_empty(), "{v:?}");
        for p in &v.pieces {
            assert!(p.letter.len() == 1 && p.letter.chars().all(|c| c.is_ascii_uppercase()), "{p:?}");
            assert!(!p.name.is_empty() && !p.betza.is_empty(), "{p:?}");
        }
        assert!(!v.promotions.is_empty(), "{v:?}");
        // Every start FEN is accepted back as a position.
        let moves = client.legal_moves(legal_req(pos(&v.name, &v.start_fen, &[]))).await.unwrap().into_inner();
        assert!(!moves.moves.is_empty(), "{}", v.name);
    }
    let by_name = |n: &str| variants.iter().find(|v| v.name == n).unwrap();
    let chess = by_name("chess");
    assert_eq!((chess.files, chess.ranks), (8, 8));
    assert_eq!(chess.start_fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(chess.pieces.len(), 6);
    assert_eq!(chess.reserve_piece, "");
    let cr = by_name("camel-rhino");
    assert_eq!((cr.files, cr.ranks), (10, 10));
    assert!(cr.start_fen.starts_with("r8r/1hzbqkbnc1/"));
    assert!(cr.pieces.iter().any(|p| p.name.to_lowercase().contains("camel")), "{cr:?}");
    assert!(cr.pieces.iter().any(|p| p.name.to_lowercase().contains("rhino")), "{cr:?}");
    assert_eq!(by_name("alpaca").reserve_piece, "A");
    assert!(by_name("alpaca").pieces.iter().any(|p| p.letter == "A"));
    assert_eq!(by_name("alseid").reserve_piece, "S");
    assert!(by_name("alpaca2").start_fen.contains("[AAaa?]"));
    // Variants defined as data: the ini's piece types, the king last.
    let shatranj = by_name("shatranj");
    let pieces: Vec<(&str, &str, &str)> =
        shatranj.pieces.iter().map(|p| (p.letter.as_str(), p.name.as_str(), p.betza.as_str())).collect();
    assert_eq!(
        pieces,
        [
            ("P", "pawn", "fmWfcF"),
            ("N", "knight", "N"),
            ("R", "rook", "R"),
            ("Q", "fers", "F"),
            ("B", "alfil", "A"),
            ("K", "king", "K")
        ]
    );
    assert_eq!(shatranj.promotions, ["Q"]);
    assert_eq!(by_name("capablanca").promotions, ["N", "B", "R", "Q", "A", "C"]);
}

/// Chess960 through the API: Shredder-FEN in, X-FEN out, castling
/// king-takes-rook (king-to-square and SAN read too), and perft equal to the
/// published suite.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess960_over_the_api() {
    let (_g, _server, mut client) = started(config()).await;
    let frc = "2rkr3/2p1p3/8/8/8/8/8/RK6 w A - 0 1";
    for mv in ["b1a1", "O-O-O"] {
        let r = client.validate_move(validate_req(pos("chess960", frc, &[]), mv)).await.unwrap().into_inner();
        assert!(r.legal && r.check, "{mv}: {r:?}");
        assert_eq!((r.uci.as_str(), r.san.as_str()), ("b1a1", "O-O-O#"), "{mv}");
        assert_eq!(r.fen, "2rkr3/2p1p3/8/8/8/8/8/2KR4 b - - 1 1");
    }
    // b1c1 is also an ordinary king step: that is what it means.
    let r = client.validate_move(validate_req(pos("chess960", frc, &[]), "b1c1")).await.unwrap().into_inner();
    assert!(r.legal && !r.check, "{r:?}");
    let moves = client.legal_moves(legal_req(pos("chess960", frc, &[]))).await.unwrap().into_inner();
    assert!(format!("{moves:?}").contains("b1a1"), "{moves:?}");
    let line = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let run = perft(&mut client, perft_req(pos("chess960", line, &[]), 3)).await.unwrap();
    assert_eq!(run.total(), 12189);
}

// ---------------------------------------------------------------- ValidateMove

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_move_legal_in_coordinate_and_san() {
    let (_g, _server, mut client) = started(config()).await;

    let r = client.validate_move(validate_req(start_pos(), "e2e4")).await.unwrap().into_inner();
    assert!(r.legal && r.reason.is_empty(), "{r:?}");
    assert_eq!((r.uci.as_str(), r.san.as_str()), ("e2e4", "e4"));
    assert_eq!(r.fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert!(!r.check && r.outcome.is_none());

    // SAN in, coordinate out; an empty variant means chess.
    let r = client.validate_move(validate_req(pos("", "", &[]), "Nf3")).await.unwrap().into_inner();
    assert!(r.legal);
    assert_eq!((r.uci.as_str(), r.san.as_str()), ("g1f3", "Nf3"));

    // A check, in both notations.
    for mv in ["Qh5+", "Qh5", "d1h5"] {
        let r = client.validate_move(validate_req(pos("chess", "", &["e4", "f6"]), mv)).await.unwrap().into_inner();
        assert!(r.legal && r.check, "{mv}: {r:?}");
        assert_eq!((r.uci.as_str(), r.san.as_str()), ("d1h5", "Qh5+"));
        assert!(r.outcome.is_none());
    }

    // Fool's mate: the mating move ends the game.
    for mv in ["Qh4#", "d8h4"] {
        let r = client.validate_move(validate_req(pos("chess", "", &FOOLS_MATE), mv)).await.unwrap().into_inner();
        assert!(r.legal && r.check, "{r:?}");
        assert_eq!((r.uci.as_str(), r.san.as_str()), ("d8h4", "Qh4#"));
        let o = r.outcome.unwrap();
        assert_eq!((o.result.as_str(), o.winner.as_str(), o.reason.as_str()), ("0-1", "black", "checkmate"));
        assert!(!o.description.is_empty());
    }

    // Moves given in coordinate and SAN form mix freely in position.moves.
    let r = client.validate_move(validate_req(pos("chess", "", &["f2f3", "e5", "g2g4"]), "Qh4")).await.unwrap();
    assert_eq!(r.into_inner().san, "Qh4#");

    // Fairy variants: the Alpaca prelude and a camel-rhino move.
    let r = client.validate_move(validate_req(pos("alpaca", "", &[]), "accept")).await.unwrap().into_inner();
    assert!(r.legal && r.uci == "accept", "{r:?}");
    let r = client.validate_move(validate_req(pos("camel-rhino", "", &[]), "e4e5")).await.unwrap().into_inner();
    assert!(r.legal, "{r:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_move_illegal_says_why() {
    let (_g, _server, mut client) = started(config()).await;
    for (position, mv) in [
        (start_pos(), "e2e5"),
        (start_pos(), "Ke2"),
        (start_pos(), "Qh5"),
        (pos("chess", "", &["e4"]), "e2e4"),
        // The game is already over.
        (pos("chess", "", &["f3", "e5", "g4", "Qh4#"]), "e2e4"),
        (pos("chess", STALEMATE, &[]), "Kh7"),
    ] {
        let r = client.validate_move(validate_req(position, mv)).await.unwrap().into_inner();
        assert!(!r.legal, "{mv}: {r:?}");
        assert!(!r.reason.is_empty(), "{mv}: {r:?}");
        assert!(r.uci.is_empty() && r.san.is_empty() && r.fen.is_empty() && r.outcome.is_none(), "{r:?}");
    }
    // Text that is no move at all is a bad argument, not an illegal move.
    assert_bad_field(client.validate_move(validate_req(start_pos(), "hello")).await, Code::InvalidArgument, "move");
    // So is a move naming a square the board does not have.
    for (variant, mv) in [("chess", "zz9"), ("chess", "e2e9"), ("chess", "Ni3"), ("camel-rhino", "k3k4")] {
        let r = client.validate_move(validate_req(pos(variant, "", &[]), mv)).await;
        assert_bad_field(r, Code::InvalidArgument, "move");
    }
    let s = client.validate_move(validate_req(start_pos(), "e2e9")).await.unwrap_err();
    assert!(s.message().contains("e9") && s.message().contains("8x8"), "{s:?}");
}

// ---------------------------------------------------------------- LegalMoves

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legal_moves_in_every_kind_of_position() {
    let (_g, _server, mut client) = started(config()).await;

    let r = client.legal_moves(legal_req(start_pos())).await.unwrap().into_inner();
    assert_eq!(r.moves.len(), 20);
    assert!(r.moves.iter().all(|m| !m.uci.is_empty() && !m.san.is_empty()), "{r:?}");
    assert!(r.moves.iter().any(|m| m.uci == "g1f3" && m.san == "Nf3"));
    assert!(r.moves.iter().any(|m| m.uci == "e2e4" && m.san == "e4"));
    // Each move comes with the position after it.
    let e4 = r.moves.iter().find(|m| m.uci == "e2e4").unwrap();
    assert_eq!(e4.fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert_eq!(r.side_to_move, "white");
    assert!(!r.check && r.outcome.is_none());

    let r = client.legal_moves(legal_req(pos("chess", "", &["e4"]))).await.unwrap().into_inner();
    assert_eq!((r.moves.len(), r.side_to_move.as_str()), (20, "black"));
    assert_eq!(r.fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");

    // In check: only evasions.
    let r = client.legal_moves(legal_req(pos("chess", "", &["e4", "f6"]))).await.unwrap().into_inner();
    assert_eq!(r.moves.len(), 30);
    let r = client.legal_moves(legal_req(pos("chess", "", &["e4", "f6", "Qh5+"]))).await.unwrap().into_inner();
    assert!(r.check);
    assert_eq!(r.moves.iter().map(|m| m.san.as_str()).collect::<Vec<_>>(), ["g6"]);

    // Stalemate and checkmate: no moves, and the outcome.
    let r = client.legal_moves(legal_req(pos("chess", STALEMATE, &[]))).await.unwrap().into_inner();
    assert!(r.moves.is_empty() && !r.check);
    let o = r.outcome.unwrap();
    assert_eq!((o.result.as_str(), o.winner.as_str(), o.reason.as_str()), ("1/2-1/2", "", "stalemate"));
    let r = client.legal_moves(legal_req(pos("chess", "", &["f3", "e5", "g4", "Qh4#"]))).await.unwrap().into_inner();
    assert!(r.moves.is_empty() && r.check);
    assert_eq!(r.outcome.unwrap().reason, "checkmate");

    // Camel and Rhino Chess on 10x10.
    let r = client.legal_moves(legal_req(pos("camel-rhino", "", &[]))).await.unwrap().into_inner();
    assert_eq!(r.moves.len(), 105);
    assert!(r.moves.iter().all(|m| !m.san.is_empty()));

    // The Alpaca prelude: accept or decline, then the game goes on.
    for variant in ["alpaca", "alpaca2", "alpaca-samefile"] {
        let r = client.legal_moves(legal_req(pos(variant, "", &[]))).await.unwrap().into_inner();
        let mut ucis: Vec<&str> = r.moves.iter().map(|m| m.uci.as_str()).collect();
        ucis.sort_unstable();
        assert_eq!(ucis, ["accept", "decline"], "{variant}");
        assert!(r.moves.iter().all(|m| !m.san.is_empty()));
    }
    let r = client.legal_moves(legal_req(pos("alpaca", "", &["accept"]))).await.unwrap().into_inner();
    assert!(!r.moves.is_empty());
    let r = client.legal_moves(legal_req(pos("alseid", "", &["decline"]))).await.unwrap().into_inner();
    assert!(!r.moves.is_empty());
}

// ---------------------------------------------------------------- Perft

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perft_divide_sums_to_the_total_with_and_without_a_table() {
    let (_g, _server, mut client) = started(config()).await;

    let plain = perft(&mut client, perft_req(start_pos(), 4)).await.unwrap();
    assert_eq!(plain.total(), 197_281);
    assert_eq!(plain.divides.len(), 20);
    assert_eq!(plain.divides.iter().map(|d| d.nodes).sum::<u64>(), 197_281);
    assert!(plain.divides.iter().all(|d| !d.r#move.is_empty() && !d.san.is_empty()));
    assert_eq!(plain.divide_map()["g1f3"], 9748);
    assert!(plain.divides.iter().any(|d| d.r#move == "g1f3" && d.san == "Nf3"));

    for (hash_mb, threads) in [(16, 0), (1, 1), (4, 2)] {
        let req = pb::PerftRequest { hash_mb, threads, ..perft_req(start_pos(), 4) };
        let hashed = perft(&mut client, req).await.unwrap();
        assert_eq!(hashed.total(), 197_281, "hash {hash_mb} threads {threads}");
        assert_eq!(hashed.divide_map(), plain.divide_map(), "hash {hash_mb} threads {threads}");
    }

    // Depth 1 lists the moves, each counting 1.
    let one = perft(&mut client, perft_req(start_pos(), 1)).await.unwrap();
    assert_eq!((one.total(), one.divides.len()), (20, 20));
    assert!(one.divides.iter().all(|d| d.nodes == 1));

    // After moves, and in fairy variants.
    let after = perft(&mut client, perft_req(pos("chess", "", &["e4", "e5"]), 2)).await.unwrap();
    assert_eq!(after.total(), 835); // python-chess agrees
    for (variant, depth, want) in [("camel-rhino", 2, 11_016), ("alpaca", 3, 92), ("alseid", 4, 1744)] {
        let run = perft(&mut client, perft_req(pos(variant, "", &[]), depth)).await.unwrap();
        assert_eq!(run.total(), want, "{variant}");
        assert_eq!(run.divides.iter().map(|d| d.nodes).sum::<u64>(), want, "{variant}");
    }
    let run = perft(&mut client, perft_req(pos("chess", POSITION3, &[]), 5)).await.unwrap();
    assert_eq!(run.total(), 674_624);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perft_reports_progress_on_a_longer_run() {
    let (_g, server, mut client) = started(Config { progress_ms: 10, ..config() }).await;
    let run = perft(&mut client, perft_req(pos("chess", KIWIPETE, &[]), 5)).await.unwrap();
    assert_eq!(run.total(), 193_690_690);
    assert_eq!(run.divides.len(), 48);
    assert_eq!(run.divides.iter().map(|d| d.nodes).sum::<u64>(), 193_690_690);
    assert!(!run.progress.is_empty(), "no progress events");
    for p in &run.progress {
        assert_eq!(p.moves_total, 48);
        assert!(p.moves_done <= 48 && p.nodes <= 193_690_690, "{p:?}");
    }
    assert!(run.progress.windows(2).all(|w| w[0].nodes <= w[1].nodes && w[0].moves_done <= w[1].moves_done));
    assert_eq!(server.running(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_perft_streams_are_all_correct() {
    let _g = shared().await;
    let server = start(Config { max_jobs: 3, max_jobs_per_client: Some(3), max_threads: 1, ..config() }).await;
    let client = server.client().await;
    let cases = [
        (start_pos(), 4, 197_281),
        (pos("chess", KIWIPETE, &[]), 3, 97_862),
        (pos("chess", POSITION3, &[]), 5, 674_624),
    ];
    // All three streams are open at once before any is read.
    let mut streams = Vec::new();
    for (position, depth, _) in &cases {
        let mut c = client.clone();
        streams.push(c.perft(perft_req(position.clone(), *depth)).await.unwrap().into_inner());
    }
    let tasks: Vec<_> = streams.into_iter().map(|s| tokio::spawn(collect_perft(s))).collect();
    for (task, (_, depth, want)) in tasks.into_iter().zip(cases) {
        let run = task.await.unwrap().unwrap();
        assert_eq!(run.total(), want, "depth {depth}");
        assert_eq!(run.divides.iter().map(|d| d.nodes).sum::<u64>(), want);
    }
    wait_until("running jobs to reach 0", || server.running() == 0).await;
    assert_eq!(server.service.jobs().stats.started.load(Ordering::Relaxed), 3);
}

// ---------------------------------------------------------------- PerftBatch

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perft_batch_verifies_each_job_and_survives_bad_ones() {
    let (_g, server, mut client) = started(Config { max_perft_depth: 5, ..config() }).await;
    let dc = |depth, nodes| pb::DepthCount { depth, nodes };
    let jobs = vec![
        epd_job("start-epd", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902"),
        epd_job("kiwipete-wrong", format!("{KIWIPETE} ;D1 48 ;D2 2040")),
        pb::PerftBatchRequest { id: "bad-fen".into(), epd: "not/a/fen w - - 0 1 ;D1 20".into(), ..Default::default() },
        pb::PerftBatchRequest {
            id: "camel-rhino-epd".into(),
            epd: "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1 ;variant camel-rhino ;D1 105 ;D2 11016 ;D3 1119157 ;D4 113332570".into(),
            max_depth: 2,
            ..Default::default()
        },
        pb::PerftBatchRequest {
            id: "alpaca-default-variant".into(),
            epd: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] w KQkq - 0 1 ;D1 2 ;D2 10 ;D3 92".into(),
            default_variant: "alpaca".into(),
            ..Default::default()
        },
        pb::PerftBatchRequest {
            id: "position".into(),
            position: pos("chess", "", &["e4", "e5"]),
            expected: vec![dc(1, 29), dc(2, 835)],
            ..Default::default()
        },
        pb::PerftBatchRequest {
            id: "position-wrong".into(),
            position: pos("chess", POSITION3, &[]),
            expected: vec![dc(1, 14), dc(2, 190)],
            ..Default::default()
        },
        pb::PerftBatchRequest { id: "bad-variant".into(), position: pos("tamerlane", "", &[]), expected: vec![dc(1, 30)], ..Default::default() },
        pb::PerftBatchRequest { id: "too-deep".into(), position: start_pos(), expected: vec![dc(6, 119_060_324)], ..Default::default() },
        pb::PerftBatchRequest {
            id: "illegal-move".into(),
            position: pos("chess", "", &["e2e4", "e2e4"]),
            expected: vec![dc(1, 20)],
            ..Default::default()
        },
        pb::PerftBatchRequest { id: "last".into(), position: start_pos(), expected: vec![dc(3, 8902)], ..Default::default() },
    ];
    let n = jobs.len();
    let mut stream = client.perft_batch(tokio_stream::iter(jobs)).await.unwrap().into_inner();
    let mut results = BTreeMap::new();
    let mut order = Vec::new();
    while let Some(r) = stream.message().await.unwrap() {
        order.push(r.id.clone());
        results.insert(r.id.clone(), r);
    }
    assert_eq!(results.len(), n, "one result per job: {order:?}");
    assert_eq!(order.last().map(String::as_str), Some("last"), "results come in job order");

    let ok = |id: &str| {
        let r = &results[id];
        assert!(r.error.is_empty() && r.error_code.is_empty(), "{id}: {r:?}");
        r
    };
    let r = ok("start-epd");
    assert!(r.pass);
    assert_eq!(
        r.depths.iter().map(|d| (d.depth, d.expected, d.actual, d.pass)).collect::<Vec<_>>(),
        [(1, 20, 20, true), (2, 400, 400, true), (3, 8902, 8902, true)]
    );
    let r = ok("kiwipete-wrong");
    assert!(!r.pass);
    assert_eq!(r.depths[1].actual, 2039);
    assert!(r.depths[0].pass && !r.depths[1].pass);
    let r = ok("camel-rhino-epd");
    assert!(r.pass);
    assert_eq!(r.depths.len(), 2, "max_depth skips the deeper counts");
    assert!(ok("alpaca-default-variant").pass);
    assert!(ok("position").pass);
    let r = ok("position-wrong");
    assert!(!r.pass && r.depths[0].pass && r.depths[1].actual == 191);
    assert!(ok("last").pass);

    let err = |id: &str, code: &str| {
        let r = &results[id];
        assert_eq!(r.error_code, code, "{id}: {r:?}");
        assert!(!r.error.is_empty() && !r.pass, "{id}: {r:?}");
    };
    err("bad-fen", "INVALID_ARGUMENT");
    err("bad-variant", "INVALID_ARGUMENT");
    err("too-deep", "OUT_OF_RANGE");
    err("illegal-move", "FAILED_PRECONDITION");
    wait_until("running jobs to reach 0", || server.running() == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perft_batch_is_interactive_and_ends_at_the_deadline() {
    let (_g, server, mut client) = started(config()).await;
    // One job at a time: each result arrives before the next job is sent.
    let (tx, rx) = mpsc::channel(4);
    let mut stream = client.perft_batch(ReceiverStream::new(rx)).await.unwrap().into_inner();
    for (i, depth) in [(0, 2), (1, 3)] {
        let job = pb::PerftBatchRequest {
            id: format!("job{i}"),
            position: start_pos(),
            expected: vec![pb::DepthCount { depth, nodes: [20, 400, 8902][depth as usize - 1] }],
            ..Default::default()
        };
        tx.send(job).await.unwrap();
        let r = stream.message().await.unwrap().unwrap();
        assert!(r.pass && r.id == format!("job{i}"), "{r:?}");
    }
    drop(tx);
    assert!(stream.message().await.unwrap().is_none());

    // An idle batch stream ends when its deadline passes.
    let (_tx, rx) = mpsc::channel::<pb::PerftBatchRequest>(1);
    let mut req = Request::new(ReceiverStream::new(rx));
    req.set_timeout(Duration::from_millis(300));
    let mut stream = client.perft_batch(req).await.unwrap().into_inner();
    assert_eq!(stream_error(&mut stream).await.code(), Code::DeadlineExceeded);
    wait_until("running jobs to reach 0", || server.running() == 0).await;
}

// ---------------------------------------------------------------- Analyze / BestMove

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyze_streams_deepening_info_then_the_best_move() {
    use pb::analyze_response::Event;
    let (_g, server, mut client) = started(config()).await;
    let req = pb::AnalyzeRequest { depth: 6, multipv: 2, ..analyze_req(pos("chess", "", &["e4", "e5"])) };
    let mut stream = client.analyze(req).await.unwrap().into_inner();
    let mut infos = Vec::new();
    let mut best = None;
    while let Some(ev) = stream.message().await.unwrap() {
        assert!(best.is_none(), "an event after the best move");
        match ev.event.unwrap() {
            Event::Info(i) => infos.push(i),
            Event::BestMove(b) => best = Some(b),
        }
    }
    assert!(!infos.is_empty());
    assert!(infos.windows(2).all(|w| w[0].depth < w[1].depth), "depths must increase: {infos:?}");
    assert_eq!(infos.last().unwrap().depth, 6);
    for i in &infos {
        assert_eq!(i.lines.iter().map(|l| l.multipv).collect::<Vec<_>>(), [1, 2], "{i:?}");
        for l in &i.lines {
            assert!(!l.pv.is_empty() && l.pv.len() == l.pv_san.len(), "{l:?}");
            assert!(l.score.is_some());
            let w = l.wdl.expect("every line has its win/draw/loss chances");
            assert_eq!(w.win + w.draw + w.loss, 1000, "{l:?}");
        }
        assert_ne!(i.lines[0].pv[0], i.lines[1].pv[0], "two different first moves");
    }
    let best = best.expect("no best_move event");
    assert_eq!(best.depth, 6);
    assert_eq!(best.lines.len(), 2);
    assert!(best.score.is_some() && best.nodes > 0);
    // The best move is legal, and its SAN matches.
    let v = client
        .validate_move(validate_req(pos("chess", "", &["e4", "e5"]), &best.best_move))
        .await
        .unwrap()
        .into_inner();
    assert!(v.legal && v.san == best.best_move_san, "{best:?} {v:?}");
    // The PV's coordinate and SAN forms name the same moves.
    let line = &best.lines[0];
    assert_eq!(best.wdl, line.wdl, "the best move's chances are its line's");
    assert_eq!(line.pv[0], best.best_move);
    assert_eq!(line.pv_san[0], best.best_move_san);
    wait_until("running jobs to reach 0", || server.running() == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn best_move_honours_depth_nodes_movetime_and_multipv() {
    let (_g, server, mut client) = started(config()).await;
    let legal: Vec<String> = client
        .legal_moves(legal_req(start_pos()))
        .await
        .unwrap()
        .into_inner()
        .moves
        .into_iter()
        .map(|m| m.uci)
        .collect();

    let r = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 5, ..analyze_req(start_pos()) }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.depth, 5);
    assert!(legal.contains(&r.best_move), "{r:?}");
    assert!(!r.best_move_san.is_empty() && r.score.is_some() && r.nodes > 0, "{r:?}");
    assert_eq!(r.lines.len(), 1);

    let r = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { nodes: 20_000, ..analyze_req(start_pos()) }))
        .await
        .unwrap()
        .into_inner();
    assert!(legal.contains(&r.best_move), "{r:?}");
    assert!(r.nodes > 0 && r.depth >= 1, "{r:?}");

    let r = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { movetime_ms: 200, ..analyze_req(start_pos()) }))
        .await
        .unwrap()
        .into_inner();
    assert!(legal.contains(&r.best_move) && r.depth >= 1, "{r:?}");

    let r = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 4, multipv: 3, ..analyze_req(start_pos()) }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.lines.iter().map(|l| l.multipv).collect::<Vec<_>>(), [1, 2, 3]);
    let firsts: std::collections::BTreeSet<&str> = r.lines.iter().map(|l| l.pv[0].as_str()).collect();
    assert_eq!(firsts.len(), 3, "{r:?}");
    assert_eq!(r.lines[0].pv[0], r.best_move);

    // Mate in one is found, with a mate score.
    let r = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest {
            depth: 3,
            ..analyze_req(pos("chess", "", &FOOLS_MATE))
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!((r.best_move.as_str(), r.best_move_san.as_str()), ("d8h4", "Qh4#"));
    assert_eq!(r.score.unwrap().value, Some(pb::score::Value::Mate(1)));

    // Fairy variants, and more than one search thread.
    let r = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest {
            depth: 3,
            threads: 2,
            ..analyze_req(pos("camel-rhino", "", &[]))
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(!r.best_move.is_empty(), "{r:?}");
    let r = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 2, ..analyze_req(pos("alpaca", "", &[])) }))
        .await
        .unwrap()
        .into_inner();
    assert!(r.best_move == "accept" || r.best_move == "decline", "{r:?}");
    wait_until("running jobs to reach 0", || server.running() == 0).await;
}

// ---------------------------------------------------------------- Error codes

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_arguments_name_the_field() {
    let (_g, server, mut client) = started(config()).await;
    let cases = [
        (pos("tamerlane", "", &[]), "position.variant"),
        (pos("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", &[]), "position.fen"),
        (pos("chess", "not a fen", &[]), "position.fen"),
        (pos("camel-rhino", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &[]), "position.fen"),
        (pos("chess", "", &["e4", "hello"]), "position.moves[1]"),
        (pos("chess", "", &["e4", "e5", "Nf3", "!!"]), "position.moves[3]"),
        (pos("chess", "", &["e4", "e5", "zz9"]), "position.moves[2]"),
    ];
    for (position, field) in cases {
        assert_bad_field(
            client.validate_move(validate_req(position.clone(), "e2e4")).await,
            Code::InvalidArgument,
            field,
        );
        assert_bad_field(client.legal_moves(legal_req(position.clone())).await, Code::InvalidArgument, field);
        assert_bad_field(client.perft(perft_req(position.clone(), 2)).await, Code::InvalidArgument, field);
        let analyze = pb::AnalyzeRequest { depth: 2, ..analyze_req(position.clone()) };
        assert_bad_field(client.analyze(analyze.clone()).await, Code::InvalidArgument, field);
        assert_bad_field(client.best_move(pb::BestMoveRequest::from(analyze)).await, Code::InvalidArgument, field);
    }
    // The message says what is wrong.
    let s = client.legal_moves(legal_req(pos("tamerlane", "", &[]))).await.unwrap_err();
    assert!(s.message().contains("tamerlane") && s.message().contains("camel-rhino"), "{s:?}");
    // Perft depth 0.
    assert_bad_field(client.perft(perft_req(start_pos(), 0)).await, Code::InvalidArgument, "depth");
    assert_eq!(server.service.jobs().stats.started.load(Ordering::Relaxed), 0, "no job was admitted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_preconditions_for_illegal_moves_and_finished_games() {
    let (_g, _server, mut client) = started(config()).await;
    // An illegal move in position.moves.
    for (moves, field) in
        [(&["e2e4", "e2e4"][..], "position.moves[1]"), (&["e4", "e5", "Ke3"][..], "position.moves[2]")]
    {
        let s = client.legal_moves(legal_req(pos("chess", "", moves))).await.unwrap_err();
        assert_eq!(s.code(), Code::FailedPrecondition, "{s:?}");
        let details = s.get_error_details();
        let violations = &details.precondition_failure().unwrap().violations;
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].subject, field, "{s:?}");
        assert!(!violations[0].description.is_empty());
        let s = client.perft(perft_req(pos("chess", "", moves), 2)).await.unwrap_err();
        assert_eq!(s.code(), Code::FailedPrecondition, "{s:?}");
        let s = client
            .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest {
                depth: 2,
                ..analyze_req(pos("chess", "", moves))
            }))
            .await
            .unwrap_err();
        assert_eq!(s.code(), Code::FailedPrecondition, "{s:?}");
    }
    // Analysis of a finished game.
    for position in [pos("chess", "", &["f3", "e5", "g4", "Qh4#"]), pos("chess", STALEMATE, &[])] {
        let req = pb::AnalyzeRequest { depth: 3, ..analyze_req(position) };
        let s = client.analyze(req.clone()).await.unwrap_err();
        assert_eq!(s.code(), Code::FailedPrecondition, "{s:?}");
        assert!(s.message().contains("over"), "{s:?}");
        let s = client.best_move(pb::BestMoveRequest::from(req)).await.unwrap_err();
        assert_eq!(s.code(), Code::FailedPrecondition, "{s:?}");
    }
    // Perft of a finished game is fine: zero.
    let run = perft(&mut client, perft_req(pos("chess", STALEMATE, &[]), 3)).await.unwrap();
    assert_eq!(run.total(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_over_the_caps_are_out_of_range() {
    let (_g, _server, mut client) = started(Config {
        max_perft_depth: 4,
        max_perft_hash_mb: 8,
        max_analysis_depth: 10,
        max_analysis_nodes: 1_000_000,
        max_analysis_ms: 2_000,
        max_multipv: 4,
        max_moves: 3,
        ..config()
    })
    .await;

    assert_bad_field(client.perft(perft_req(start_pos(), 5)).await, Code::OutOfRange, "depth");
    let req = pb::PerftRequest { hash_mb: 9, ..perft_req(start_pos(), 2) };
    assert_bad_field(client.perft(req).await, Code::OutOfRange, "hash_mb");
    let req = pb::PerftRequest { threads: 3, ..perft_req(start_pos(), 2) };
    assert_bad_field(client.perft(req).await, Code::OutOfRange, "threads");
    // At the caps is fine.
    assert_eq!(perft(&mut client, perft_req(start_pos(), 4)).await.unwrap().total(), 197_281);

    let base = || analyze_req(start_pos());
    for (req, field) in [
        (pb::AnalyzeRequest { depth: 11, ..base() }, "depth"),
        (pb::AnalyzeRequest { nodes: 1_000_001, ..base() }, "nodes"),
        (pb::AnalyzeRequest { movetime_ms: 2_001, ..base() }, "movetime_ms"),
        (pb::AnalyzeRequest { depth: 2, multipv: 5, ..base() }, "multipv"),
        (pb::AnalyzeRequest { depth: 2, threads: 3, ..base() }, "threads"),
    ] {
        assert_bad_field(client.best_move(pb::BestMoveRequest::from(req.clone())).await, Code::OutOfRange, field);
        assert_bad_field(client.analyze(req).await, Code::OutOfRange, field);
    }
    let s = client.best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 11, ..base() })).await.unwrap_err();
    assert!(s.message().contains("11") && s.message().contains("10"), "{s:?}");
    let r = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 3, multipv: 4, ..base() }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.lines.len(), 4);

    // Too many moves in position.moves.
    let r = client.legal_moves(legal_req(pos("chess", "", &["e4", "e5", "Nf3", "Nc6"]))).await;
    assert_bad_field(r, Code::OutOfRange, "position.moves");
    assert_eq!(
        client.legal_moves(legal_req(pos("chess", "", &["e4", "e5", "Nf3"]))).await.unwrap().into_inner().moves.len(),
        29
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_server_refuses_with_resource_exhausted() {
    let (_g, server, mut client) = started(Config { max_jobs: 1, ..config() }).await;
    // One long analysis holds the only job slot.
    let long = pb::AnalyzeRequest { depth: 64, ..analyze_req(start_pos()) };
    let mut stream = client.analyze(long.clone()).await.unwrap().into_inner();
    assert!(stream.message().await.unwrap().is_some());
    assert_eq!(server.running(), 1);

    let s = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 2, ..analyze_req(start_pos()) }))
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    assert!(s.get_error_details().retry_info().is_some(), "a retry hint: {s:?}");
    assert_eq!(client.perft(perft_req(start_pos(), 3)).await.unwrap_err().code(), Code::ResourceExhausted);
    assert_eq!(client.analyze(long).await.unwrap_err().code(), Code::ResourceExhausted);
    let s = client.perft_batch(tokio_stream::iter(Vec::<pb::PerftBatchRequest>::new())).await.unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted);
    // Cheap calls need no job slot.
    assert_eq!(client.legal_moves(legal_req(start_pos())).await.unwrap().into_inner().moves.len(), 20);
    assert!(client.validate_move(validate_req(start_pos(), "e4")).await.unwrap().into_inner().legal);

    // Once the analysis is gone the slot is free again.
    drop(stream);
    wait_until("the slot to be free", || server.running() == 0).await;
    let r = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 2, ..analyze_req(start_pos()) }))
        .await
        .unwrap();
    assert!(!r.into_inner().best_move.is_empty());
}

// ---------------------------------------------------------------- Deadlines and cancellation (CPU)

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deadline_stops_a_long_perft_and_its_cpu_work() {
    let (_g, server, mut client) = started_exclusive(config()).await;
    assert_stopped_at_deadline(&server, &mut client, perft_req(start_pos(), 7)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deadline_stops_a_long_analysis_and_its_cpu_work() {
    let (_g, server, mut client) = started_exclusive(config()).await;

    // Streamed.
    let before = server.stopped_early();
    let mut req = Request::new(pb::AnalyzeRequest { depth: 64, threads: 2, ..analyze_req(start_pos()) });
    req.set_timeout(Duration::from_millis(300));
    let mut stream = client.analyze(req).await.unwrap().into_inner();
    let s = stream_error(&mut stream).await;
    assert_eq!(s.code(), Code::DeadlineExceeded, "{s:?}");
    assert_work_stops(&server).await;
    assert!(server.stopped_early() > before);

    // Unary: the server answers just before tonic's timeout layers would
    // (they report an expired deadline as CANCELLED "Timeout expired").
    let before = server.stopped_early();
    let mut req = Request::new(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 64, ..analyze_req(start_pos()) }));
    req.set_timeout(Duration::from_millis(300));
    let s = client.best_move(req).await.unwrap_err();
    assert_eq!(s.code(), Code::DeadlineExceeded, "{s:?}");
    assert_work_stops(&server).await;
    wait_until("stopped_early to count the analysis", || server.stopped_early() > before).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_stream_or_call_stops_its_cpu_work() {
    let (_g, server, mut client) = started_exclusive(Config { progress_ms: 50, ..config() }).await;

    // A deep perft: read one event, then go away.
    let before = server.stopped_early();
    let mut stream = client.perft(perft_req(start_pos(), 7)).await.unwrap().into_inner();
    assert!(stream.message().await.unwrap().is_some());
    assert_eq!(server.running(), 1);
    drop(stream);
    assert_work_stops(&server).await;
    wait_until("stopped_early to count the perft", || server.stopped_early() > before).await;

    // A long analysis stream.
    let before = server.stopped_early();
    let mut stream =
        client.analyze(pb::AnalyzeRequest { depth: 64, ..analyze_req(start_pos()) }).await.unwrap().into_inner();
    assert!(stream.message().await.unwrap().is_some());
    drop(stream);
    assert_work_stops(&server).await;
    wait_until("stopped_early to count the analysis", || server.stopped_early() > before).await;

    // A unary BestMove whose caller gives up.
    let before = server.stopped_early();
    let mut c2 = client.clone();
    let call = tokio::spawn(async move {
        c2.best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 64, ..analyze_req(start_pos()) })).await
    });
    wait_until("the best_move job to start", || server.running() == 1).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    call.abort();
    assert!(call.await.unwrap_err().is_cancelled());
    assert_work_stops(&server).await;
    wait_until("stopped_early to count the best_move", || server.stopped_early() > before).await;

    // A batch in the middle of a deep job.
    let before = server.stopped_early();
    let (tx, rx) = mpsc::channel(1);
    let stream = client.perft_batch(ReceiverStream::new(rx)).await.unwrap().into_inner();
    let job = pb::PerftBatchRequest {
        id: "deep".into(),
        position: start_pos(),
        expected: vec![pb::DepthCount { depth: 7, nodes: 3_195_901_860 }],
        ..Default::default()
    };
    tx.send(job).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(stream);
    drop(tx);
    assert_work_stops(&server).await;
    wait_until("stopped_early to count the batch job", || server.stopped_early() > before).await;
}

// ---------------------------------------------------------------- Shutdown

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_finishes_unary_calls_and_ends_streams() {
    use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient};
    let _g = shared().await;
    let mut server = start(config()).await;
    let mut client = server.client().await;
    let mut health = HealthClient::new(server.channel().await);
    let mut watches = Vec::new();
    for service in ["menagerie.v1.AnalysisService", ""] {
        let mut w = health.watch(HealthCheckRequest { service: service.into() }).await.unwrap().into_inner();
        assert_eq!(w.message().await.unwrap().unwrap().status(), ServingStatus::Serving);
        watches.push(w);
    }

    let mut c2 = client.clone();
    let best = tokio::spawn(async move {
        c2.best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { movetime_ms: 1_000, ..analyze_req(start_pos()) }))
            .await
    });
    let mut perft_stream = client.perft(perft_req(start_pos(), 7)).await.unwrap().into_inner();
    let (_batch_tx, batch_rx) = mpsc::channel::<pb::PerftBatchRequest>(1);
    let mut batch_stream = client.perft_batch(ReceiverStream::new(batch_rx)).await.unwrap().into_inner();
    wait_until("three jobs to run", || server.running() == 3).await;

    server.begin_shutdown();
    // Health watchers are told NOT_SERVING, then their streams end (they
    // must not hold the draining server for its grace period).
    for w in &mut watches {
        assert_eq!(w.message().await.unwrap().unwrap().status(), ServingStatus::NotServing);
        let end = tokio::time::timeout(Duration::from_secs(10), w.message()).await;
        assert!(end.expect("the health watch did not end").unwrap().is_none());
    }
    let s = stream_error(&mut perft_stream).await;
    assert_eq!(s.code(), Code::Unavailable, "{s:?}");
    let s = stream_error(&mut batch_stream).await;
    assert_eq!(s.code(), Code::Unavailable, "{s:?}");
    let r = best.await.unwrap().unwrap().into_inner();
    assert!(!r.best_move.is_empty(), "{r:?}");
    drop((perft_stream, batch_stream, client, health, watches));
    // The server returns once its calls are done, well before the 30 s grace.
    let served = tokio::time::timeout(Duration::from_secs(20), server.serving).await;
    served.expect("serve did not return after its calls ended").unwrap().unwrap();
    assert_eq!(server.service.jobs().running(), 0);
    // No new connections.
    assert!(Channel::from_shared(format!("http://{}", server.addr)).unwrap().connect().await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_outlasting_the_grace_period_are_stopped() {
    let _g = shared().await;
    let mut server = start_with_grace(config(), Duration::from_millis(300)).await;
    let mut client = server.client().await;
    let before = server.stopped_early();
    let call = tokio::spawn(async move {
        client
            .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest {
                movetime_ms: 30_000,
                ..analyze_req(start_pos())
            }))
            .await
    });
    wait_until("the best_move job to start", || server.running() == 1).await;
    server.begin_shutdown();
    tokio::time::timeout(Duration::from_secs(20), &mut server.serving).await.unwrap().unwrap().unwrap();
    let s = call.await.unwrap().unwrap_err();
    assert_eq!(s.code(), Code::Unavailable, "{s:?}");
    wait_until("the job to stop", || server.running() == 0 && server.stopped_early() > before).await;
}

// ---------------------------------------------------------------- Health and reflection

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_reports_serving() {
    use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient};
    let _g = shared().await;
    let server = start(config()).await;
    let mut health = HealthClient::new(server.channel().await);
    for service in ["menagerie.v1.AnalysisService", ""] {
        let r = health.check(HealthCheckRequest { service: service.into() }).await.unwrap().into_inner();
        assert_eq!(r.status(), ServingStatus::Serving, "{service:?}");
    }
    let s = health.check(HealthCheckRequest { service: "no.such.Service".into() }).await.unwrap_err();
    assert_eq!(s.code(), Code::NotFound);
}

/// grpcurl and other reflection clients decode error details only if the
/// server also serves the `google.rpc` descriptors (with their imports).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_serves_the_google_rpc_error_detail_descriptors() {
    use prost::Message;
    use tonic_reflection::pb::v1::{
        ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
        server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
    };
    let _g = shared().await;
    let server = start(config()).await;
    let mut client = ServerReflectionClient::new(server.channel().await);
    let symbols = ["google.rpc.BadRequest", "google.rpc.PreconditionFailure", "google.rpc.RetryInfo"];
    let mut reqs: Vec<ServerReflectionRequest> = symbols
        .iter()
        .map(|s| ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::FileContainingSymbol(s.to_string())),
        })
        .collect();
    reqs.push(ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::FileByFilename("google/protobuf/duration.proto".into())),
    });
    let mut stream = client.server_reflection_info(tokio_stream::iter(reqs)).await.unwrap().into_inner();
    for symbol in symbols {
        let Some(MessageResponse::FileDescriptorResponse(files)) =
            stream.message().await.unwrap().unwrap().message_response
        else {
            panic!("{symbol}: not a file descriptor")
        };
        let files: Vec<prost_types::FileDescriptorProto> = files
            .file_descriptor_proto
            .iter()
            .map(|b| prost_types::FileDescriptorProto::decode(b.as_slice()).unwrap())
            .collect();
        let short = symbol.trim_start_matches("google.rpc.");
        assert!(
            files.iter().any(|f| f.package() == "google.rpc" && f.message_type.iter().any(|m| m.name() == short)),
            "{symbol} not in {:?}",
            files.iter().map(|f| f.name()).collect::<Vec<_>>()
        );
    }
    let Some(MessageResponse::FileDescriptorResponse(files)) =
        stream.message().await.unwrap().unwrap().message_response
    else {
        panic!("google/protobuf/duration.proto (RetryInfo's import) is not served")
    };
    assert!(!files.file_descriptor_proto.is_empty());
}

/// Asks the reflection service of version `$v` (`v1`, `v1alpha`) on
/// `$channel` for its services, which must include `$want`, and for the
/// file defining the analysis service.
macro_rules! check_reflection {
    ($v:ident, $channel:expr, $want:expr) => {{
        use tonic_reflection::pb::$v::{
            ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
            server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
        };
        let mut client = ServerReflectionClient::new($channel);
        let reqs = [
            MessageRequest::ListServices(String::new()),
            MessageRequest::FileContainingSymbol("menagerie.v1.AnalysisService".into()),
        ]
        .map(|r| ServerReflectionRequest { host: String::new(), message_request: Some(r) });
        let mut stream = client.server_reflection_info(tokio_stream::iter(reqs)).await.unwrap().into_inner();
        let Some(MessageResponse::ListServicesResponse(list)) =
            stream.message().await.unwrap().unwrap().message_response
        else {
            panic!("not a service list")
        };
        let names: Vec<&str> = list.service.iter().map(|s| s.name.as_str()).collect();
        for w in $want {
            assert!(names.contains(&w), "{} lists {names:?}", stringify!($v));
        }
        let Some(MessageResponse::FileDescriptorResponse(files)) =
            stream.message().await.unwrap().unwrap().message_response
        else {
            panic!("not a file descriptor")
        };
        assert!(!files.file_descriptor_proto.is_empty());
    }};
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_lists_the_services_in_v1_and_v1alpha() {
    let _g = shared().await;
    let server = start(config()).await;
    let channel = server.channel().await;
    let want = ["menagerie.v1.AnalysisService", "grpc.health.v1.Health"];
    check_reflection!(v1, channel.clone(), want);
    check_reflection!(v1alpha, channel, want);
}

// ---------------------------------------------------------------- The binary

/// The `menagerie-server` binary started with `args` (JSON logs on stdout),
/// its stdout lines after the one announcing the address, and a client.
async fn spawn_binary(
    args: &[&str],
) -> (std::process::Child, std::io::Lines<std::io::BufReader<std::process::ChildStdout>>, AnalysisServiceClient<Channel>)
{
    let (child, addr, lines) = common::launch(args);
    (child, lines, common::client(&addr).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_shuts_down_gracefully_on_sigterm() {
    let _g = shared().await;
    let (mut child, lines, mut client) = spawn_binary(&["--log", "info"]).await;
    assert!(client.list_variants(pb::ListVariantsRequest {}).await.unwrap().into_inner().variants.len() > 8);
    let mut stream = client.perft(perft_req(start_pos(), 7)).await.unwrap().into_inner();

    let killed = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    assert_eq!(stream_error(&mut stream).await.code(), Code::Unavailable);
    drop((stream, client));
    let mut status = None;
    for _ in 0..500 {
        status = child.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let status = status.unwrap_or_else(|| {
        let _ = child.kill();
        panic!("the server did not exit after SIGTERM")
    });
    assert!(status.success(), "exit status {status:?}: SIGTERM must be handled, not fatal");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l.contains("shutting down")), "{rest:?}");
}

// ---------------------------------------------------------------- Hostile clients and fairness

/// Threads of this process now.
fn threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("Threads:")).unwrap();
    line[8..].trim().parse().unwrap()
}

/// A client whose connections come from `ip` (a distinct peer for per-client limits).
async fn client_from(server: &TestServer, ip: &str) -> AnalysisServiceClient<Channel> {
    let channel = Channel::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .local_address(Some(ip.parse().unwrap()))
        .connect()
        .await
        .unwrap();
    AnalysisServiceClient::new(channel)
}

/// Runs a call, failing the test (instead of hanging it) after 20 s.
async fn bounded<T>(what: &str, call: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(20), call).await.unwrap_or_else(|_| panic!("{what} hung"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_a_job_ends_only_its_call_with_internal_and_frees_its_slot_and_threads() {
    let (_g, server, mut client) = started_exclusive(config()).await;
    assert_eq!(perft(&mut client, perft_req(start_pos(), 3)).await.unwrap().total(), 8_902);
    let threads_before = threads();
    for _ in 0..30 {
        // A perft worker panics on its first root move.
        server.service.inject_panics(1);
        let s = bounded("perft", perft(&mut client, perft_req(start_pos(), 4))).await.unwrap_err();
        assert_eq!(s.code(), Code::Internal, "{s:?}");
    }
    // Unary.
    server.service.inject_panics(1);
    let s = bounded("validate", client.validate_move(validate_req(start_pos(), "e4"))).await.unwrap_err();
    assert_eq!(s.code(), Code::Internal, "{s:?}");
    // A batch: the job that panics is that job's INTERNAL error; the stream goes on.
    server.service.inject_panics(1);
    let job = |id: &str| pb::PerftBatchRequest {
        id: id.into(),
        position: start_pos(),
        expected: vec![pb::DepthCount { depth: 2, nodes: 400 }],
        ..Default::default()
    };
    let stream = client.perft_batch(tokio_stream::iter(vec![job("a"), job("b")])).await.unwrap().into_inner();
    let results: Vec<_> = bounded("batch", tokio_stream::StreamExt::collect::<Vec<_>>(stream)).await;
    let results: Vec<_> = results.into_iter().map(Result::unwrap).collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].error_code, "INTERNAL", "{:?}", results[0]);
    assert!(!results[0].pass);
    assert!(results[1].pass, "{:?}", results[1]);

    wait_until("every slot to be free", || server.running() == 0).await;
    assert_eq!(server.service.jobs().stats.panicked.load(Ordering::Relaxed), 32);
    // No thread leaked (a few of tokio's idle blocking threads may linger).
    wait_until("the job threads to end", || threads() <= threads_before + 4).await;
    assert_eq!(perft(&mut client, perft_req(start_pos(), 3)).await.unwrap().total(), 8_902);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prelude_action_never_leaves_the_king_in_check() {
    let (_g, _server, mut client) = started(config()).await;
    for (variant, fen, action) in [
        ("alpaca", "4k3/8/8/8/8/8/8/4R1K1[a] b - - 0 1", "A@e"),
        ("alseid", "4k3/8/8/8/8/8/8/4R1K1[s] b - - 0 1", "S@e"),
    ] {
        let position = pos(variant, fen, &[]);
        let legal = bounded("legal", client.legal_moves(legal_req(position.clone()))).await.unwrap().into_inner();
        assert!(legal.moves.is_empty(), "{variant}: {:?}", legal.moves);
        assert!(legal.check);
        let r = bounded("validate", client.validate_move(validate_req(position.clone(), action))).await.unwrap();
        assert!(!r.into_inner().legal);
        let moved = bounded("validate", client.validate_move(validate_req(pos(variant, fen, &[action]), "e1e8"))).await;
        assert_eq!(moved.unwrap_err().code(), Code::FailedPrecondition);
        let run = bounded("perft", perft(&mut client, perft_req(position.clone(), 3))).await.unwrap();
        assert_eq!(run.total(), 0);
        let job = pb::PerftBatchRequest {
            id: variant.into(),
            position,
            expected: vec![pb::DepthCount { depth: 3, nodes: 0 }],
            ..Default::default()
        };
        let mut results = client.perft_batch(tokio_stream::iter(vec![job])).await.unwrap().into_inner();
        let result = bounded("batch", results.message()).await.unwrap().unwrap();
        assert_eq!(result.depths[0].actual, 0, "{result:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_fields_get_a_short_error_naming_the_field() {
    let (_g, _server, mut client) = started(config()).await;
    let huge = "x".repeat(1 << 20);
    let check = |r: Result<tonic::Response<pb::LegalMovesResponse>, Status>, field: &str| {
        let s = r.unwrap_err();
        assert_eq!(s.code(), Code::InvalidArgument, "{}", &s.message()[..s.message().len().min(200)]);
        assert!(s.message().len() < 1024, "a {} byte message", s.message().len());
        assert_eq!(bad_fields(&s), vec![field.to_string()]);
    };
    check(client.legal_moves(legal_req(pos(&huge, "", &[]))).await, "position.variant");
    check(client.legal_moves(legal_req(pos("chess", "", &["e4", &huge]))).await, "position.moves[1]");
    check(client.legal_moves(legal_req(pos("chess", &huge, &[]))).await, "position.fen");
    // Reserve counts do not wrap: 257 Alseids in reserve, a megabyte of Alpacas.
    let alseids = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[S{}?] w KQkq - 0 1", "s".repeat(257));
    check(client.legal_moves(legal_req(pos("alseid", &alseids, &[]))).await, "position.fen");
    let alpacas = format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[{}] w KQkq - 0 1", "A".repeat(1 << 20));
    check(client.legal_moves(legal_req(pos("alpaca", &alpacas, &[]))).await, "position.fen");
    let s = client.validate_move(validate_req(start_pos(), &huge)).await.unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument);
    assert!(s.message().len() < 1024);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enormous_grpc_timeout_is_no_deadline() {
    let (_g, _server, mut client) = started(config()).await;
    for timeout in ["18446744073709551615S", "99999999H", "99999999S"] {
        let mut req = Request::new(validate_req(start_pos(), "e4"));
        req.metadata_mut().insert("grpc-timeout", timeout.parse().unwrap());
        assert!(client.validate_move(req).await.unwrap().into_inner().legal, "{timeout}");
        let mut req = Request::new(perft_req(start_pos(), 2));
        req.metadata_mut().insert("grpc-timeout", timeout.parse().unwrap());
        assert_eq!(collect_perft(client.perft(req).await.unwrap().into_inner()).await.unwrap().total(), 400);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_many_small_jobs_completes_on_one_connection() {
    let (_g, _server, mut client) = started(config()).await;
    const N: usize = 20_000;
    let jobs = (0..N).map(|i| pb::PerftBatchRequest {
        id: i.to_string(),
        position: start_pos(),
        expected: vec![pb::DepthCount { depth: 1, nodes: 20 }],
        ..Default::default()
    });
    let mut results = client.perft_batch(tokio_stream::iter(jobs)).await.unwrap().into_inner();
    let mut n = 0;
    while let Some(r) = bounded("the batch", results.message()).await.unwrap() {
        assert!(r.pass, "{r:?}");
        assert_eq!(r.id, n.to_string());
        n += 1;
    }
    assert_eq!(n, N);
    // The connection is still good.
    assert!(client.validate_move(validate_req(start_pos(), "e4")).await.unwrap().into_inner().legal);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_checked_is_skipped_not_passed() {
    let (_g, _server, mut client) = started(config()).await;
    let jobs = vec![
        pb::PerftBatchRequest { id: "no-depths".into(), position: start_pos(), ..Default::default() },
        pb::PerftBatchRequest {
            id: "too-deep".into(),
            epd: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D50 1".into(),
            max_depth: 5,
            ..Default::default()
        },
        pb::PerftBatchRequest { id: "epd-no-depths".into(), epd: KIWIPETE.into(), ..Default::default() },
        pb::PerftBatchRequest {
            id: "checked".into(),
            epd: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D50 1".into(),
            max_depth: 5,
            ..Default::default()
        },
    ];
    let stream = client.perft_batch(tokio_stream::iter(jobs)).await.unwrap().into_inner();
    let results: Vec<_> = tokio_stream::StreamExt::collect::<Vec<_>>(stream).await;
    let results: Vec<_> = results.into_iter().map(Result::unwrap).collect();
    for r in &results[..3] {
        assert!(r.skipped && !r.pass && r.depths.is_empty(), "{r:?}");
    }
    assert!(results[3].pass && !results[3].skipped, "{:?}", results[3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_greedy_client_cannot_lock_out_the_others() {
    let _g = exclusive().await;
    let server = start(Config { max_jobs: 6, max_jobs_per_client: Some(2), max_threads: 1, ..config() }).await;
    let greedy = client_from(&server, "127.0.0.1").await;
    let mut streams = Vec::new();
    let mut refused = 0;
    for _ in 0..50 {
        match greedy.clone().perft(perft_req(start_pos(), 7)).await {
            Ok(s) => streams.push(s.into_inner()),
            Err(s) => {
                assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
                assert!(s.get_error_details().retry_info().is_some());
                refused += 1;
            }
        }
    }
    assert_eq!((streams.len(), refused), (2, 48));
    // Others still get their work.
    for ip in ["127.0.0.2", "127.0.0.3"] {
        let mut other = client_from(&server, ip).await;
        assert_eq!(perft(&mut other, perft_req(start_pos(), 3)).await.unwrap().total(), 8_902);
        let r = other
            .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 3, ..analyze_req(start_pos()) }))
            .await
            .unwrap();
        assert!(!r.into_inner().best_move.is_empty());
    }
    assert!(server.service.jobs().stats.refused_client.load(Ordering::Relaxed) >= 48);
    drop(streams);
    assert_work_stops(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_stream_gives_its_slot_back() {
    let (_g, server, mut client) = started(Config { stream_idle_ms: 300, ..config() }).await;
    // A batch stream that never sends a job.
    let (_tx, rx) = mpsc::channel::<pb::PerftBatchRequest>(1);
    let mut stream = client.perft_batch(ReceiverStream::new(rx)).await.unwrap().into_inner();
    assert_eq!(server.running(), 1);
    let s = bounded("the idle batch", stream_error(&mut stream)).await;
    assert_eq!(s.code(), Code::DeadlineExceeded, "{s:?}");
    assert!(s.message().contains("idle"), "{s:?}");
    wait_until("the slot to be free", || server.running() == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn perft_stops_at_the_server_caps() {
    let (_g, server, mut client) = started_exclusive(Config { max_perft_nodes: 100_000, ..config() }).await;
    assert_eq!(perft(&mut client, perft_req(start_pos(), 3)).await.unwrap().total(), 8_902);
    let s = bounded("perft", perft(&mut client, perft_req(start_pos(), 6))).await.unwrap_err();
    assert_eq!(s.code(), Code::OutOfRange, "{s:?}");
    assert!(s.message().contains("100000 nodes"), "{s:?}");
    assert_work_stops(&server).await;

    let server = start(Config { max_perft_ms: 300, ..config() }).await;
    let mut client = server.client().await;
    let s = bounded("perft", perft(&mut client, perft_req(start_pos(), 7))).await.unwrap_err();
    assert_eq!(s.code(), Code::OutOfRange, "{s:?}");
    assert!(s.message().contains("300 ms"), "{s:?}");
    // A batch job at the cap is that job's error.
    let job = pb::PerftBatchRequest {
        id: "deep".into(),
        position: start_pos(),
        expected: vec![pb::DepthCount { depth: 7, nodes: 3_195_901_860 }],
        ..Default::default()
    };
    let mut results = client.perft_batch(tokio_stream::iter(vec![job])).await.unwrap().into_inner();
    let r = bounded("batch", results.message()).await.unwrap().unwrap();
    assert_eq!(r.error_code, "OUT_OF_RANGE", "{r:?}");
    assert_work_stops(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_calls_during_the_shutdown_drain_fail_fast_with_unavailable() {
    let _g = shared().await;
    let mut server = start(config()).await;
    let mut client = server.client().await;
    let mut c2 = client.clone();
    // A unary call that the drain lets finish.
    let best = tokio::spawn(async move {
        c2.best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { movetime_ms: 2_000, ..analyze_req(start_pos()) }))
            .await
    });
    wait_until("the analysis to run", || server.running() == 1).await;
    server.begin_shutdown();
    wait_until("the drain to begin", || server.service.jobs().shutting_down()).await;
    for _ in 0..3 {
        // A new connection.
        let lazy = Channel::from_shared(format!("http://{}", server.addr)).unwrap().connect_lazy();
        let mut fresh = AnalysisServiceClient::new(lazy);
        let mut req = Request::new(validate_req(start_pos(), "e4"));
        req.set_timeout(Duration::from_secs(60));
        let t0 = std::time::Instant::now();
        let s = fresh.validate_move(req).await.unwrap_err();
        assert_eq!(s.code(), Code::Unavailable, "{s:?}");
        assert!(t0.elapsed() < Duration::from_secs(50), "it waited out its deadline");
        // The draining connection refuses new streams (tonic reports a
        // stream refused after GOAWAY as CANCELLED).
        let mut req = Request::new(perft_req(start_pos(), 3));
        req.set_timeout(Duration::from_secs(60));
        let t0 = std::time::Instant::now();
        let s = client.perft(req).await.unwrap_err();
        assert!(matches!(s.code(), Code::Unavailable | Code::Cancelled), "{s:?}");
        assert!(t0.elapsed() < Duration::from_secs(50), "it waited out its deadline");
    }
    assert!(!best.await.unwrap().unwrap().into_inner().best_move.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_waits_its_turn_for_a_slot_then_runs_or_is_refused() {
    let _g = shared().await;
    let server = start(Config { max_jobs: 1, queue_wait_ms: 10_000, ..config() }).await;
    let mut first = client_from(&server, "127.0.0.1").await;
    let mut second = client_from(&server, "127.0.0.2").await;
    let mut holding =
        first.analyze(pb::AnalyzeRequest { depth: 64, ..analyze_req(start_pos()) }).await.unwrap().into_inner();
    assert!(holding.message().await.unwrap().is_some());
    // The second client's job waits for the slot, and runs once it is free.
    let waiting = tokio::spawn(async move {
        second.best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest { depth: 2, ..analyze_req(start_pos()) })).await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "the job did not wait for the slot");
    drop(holding);
    let r = bounded("the waiting job", waiting).await.unwrap().unwrap();
    assert!(!r.into_inner().best_move.is_empty());

    // A wait longer than the caller's deadline ends at the deadline. The
    // first client's earlier job counts against its own limit (one job)
    // until the server has seen the dropped stream end: retry until then.
    let mut holding = None;
    for _ in 0..100 {
        match first.analyze(pb::AnalyzeRequest { depth: 64, ..analyze_req(start_pos()) }).await {
            Ok(r) => {
                holding = Some(r.into_inner());
                break;
            }
            Err(s) if s.code() == Code::ResourceExhausted => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(s) => panic!("{s:?}"),
        }
    }
    let mut holding = holding.expect("the first client's job was never released");
    assert!(holding.message().await.unwrap().is_some());
    let mut third = client_from(&server, "127.0.0.3").await;
    let mut req = Request::new(perft_req(start_pos(), 2));
    req.set_timeout(Duration::from_millis(400));
    let s = third.perft(req).await.unwrap_err();
    assert!(matches!(s.code(), Code::DeadlineExceeded | Code::Cancelled), "{s:?}");
    drop(holding);
}

/// A request for a flipped 300-pixel picture of `position`, with
/// coordinates, one arrow and one highlight.
fn marked_board(position: Option<pb::Position>, arrow: &str, highlight: &str) -> pb::RenderBoardRequest {
    pb::RenderBoardRequest {
        position,
        arrows: vec![arrow.into()],
        highlights: vec![highlight.into()],
        flip: true,
        size: 300,
        no_coordinates: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn render_board_draws_every_variant_and_names_bad_fields() {
    let (_g, _server, mut client) = started(config()).await;
    for v in ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino"] {
        let req = pb::RenderBoardRequest { position: pos(v, "", &[]), ..Default::default() };
        let svg = client.render_board(req).await.unwrap().into_inner().svg;
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{v}");
    }
    // The last move, arrows, highlights and orientation reach the picture.
    let req = marked_board(pos("camel-rhino", "", &["e4e5"]), "b2d5:red", "e10:yellow");
    let svg = client.render_board(req).await.unwrap().into_inner().svg;
    assert!(svg.contains("width=\"300\""), "{}", &svg[..200.min(svg.len())]);
    assert!(svg.contains("sq-e10") && svg.contains("sq-e5"));
    // Bad input: the offending field is named.
    let bad = |arrows: Vec<String>, highlights: Vec<String>, size: u32, moves: &[&str]| pb::RenderBoardRequest {
        position: pos("chess", "", moves),
        arrows,
        highlights,
        size,
        ..Default::default()
    };
    assert_bad_field(
        client.render_board(bad(vec!["e2e9".into()], vec![], 0, &[])).await,
        Code::InvalidArgument,
        "arrows[0]",
    );
    assert_bad_field(
        client.render_board(bad(vec![], vec!["e4".into(), "e4:mauve".into()], 0, &[])).await,
        Code::InvalidArgument,
        "highlights[1]",
    );
    assert_bad_field(client.render_board(bad(vec![], vec![], 9, &[])).await, Code::InvalidArgument, "size");
    let s = client.render_board(bad(vec![], vec![], 0, &["e2e5"])).await.unwrap_err();
    assert_eq!(s.code(), Code::FailedPrecondition, "{s:?}");
    assert!(s.message().starts_with("position.moves[0]: 'e2e5' is illegal"), "{s:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claims_are_not_endings_and_moves_say_check_and_capture() {
    let (_g, _server, mut client) = started(config()).await;
    // Threefold repetition: a claim; the game goes on (moves listed, analysis runs).
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
    let r = client.legal_moves(legal_req(pos("chess", "", &shuffle))).await.unwrap().into_inner();
    assert_eq!(r.claimable_draw, "repetition");
    assert!(r.outcome.is_none() && r.moves.len() == 20, "{r:?}");
    client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest {
            position: pos("chess", "", &shuffle),
            depth: 2,
            ..Default::default()
        }))
        .await
        .unwrap();
    // Fivefold: the game is over (FIDE 9.6.1).
    let five: Vec<&str> = shuffle.iter().chain(shuffle.iter()).copied().collect();
    let r = client.legal_moves(legal_req(pos("chess", "", &five))).await.unwrap().into_inner();
    assert_eq!(r.outcome.as_ref().map(|o| o.reason.as_str()), Some("fivefold_repetition"));
    assert_eq!(r.claimable_draw, "");
    // Fifty moves: a claim; seventy-five: over.
    let r = client
        .legal_moves(legal_req(pos("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 100 80", &[])))
        .await
        .unwrap()
        .into_inner();
    assert_eq!((r.claimable_draw.as_str(), r.outcome.is_none()), ("fifty_moves", true));
    let r = client
        .legal_moves(legal_req(pos("chess", "4k3/8/8/8/8/8/8/R3K3 w - - 150 80", &[])))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.outcome.map(|o| o.reason), Some("seventy_five_moves".into()));
    // ValidateMove reports the claim the move creates.
    let r = client.validate_move(validate_req(pos("chess", "", &shuffle[..7]), "Ng8")).await.unwrap().into_inner();
    assert!(r.legal && r.outcome.is_none() && r.claimable_draw == "repetition", "{r:?}");
    // Per-move check and capture; per-side insufficient material.
    let r = client
        .legal_moves(legal_req(pos("chess", "4k3/8/8/3p4/4P3/8/8/R3K1N1 w - - 0 1", &[])))
        .await
        .unwrap()
        .into_inner();
    let m = |u: &str| r.moves.iter().find(|m| m.uci == u).unwrap();
    assert!(m("e4d5").is_capture && !m("e4d5").gives_check);
    assert!(m("a1a8").gives_check && !m("a1a8").is_capture);
    assert!(!m("g1f3").is_capture && !m("g1f3").gives_check);
    assert!(!r.white_insufficient_material && !r.black_insufficient_material);
    let r = client
        .legal_moves(legal_req(pos("chess", "4k3/8/8/3p4/8/8/8/4KB2 w - - 0 1", &[])))
        .await
        .unwrap()
        .into_inner();
    assert!(r.white_insufficient_material && !r.black_insufficient_material, "{r:?}");
    assert!(r.outcome.is_none() && r.claimable_draw.is_empty());
    // A takeover is a capture (camel-rhino).
    let r = client
        .legal_moves(legal_req(pos("camel-rhino", "4k4h/10/10/10/10/10/10/2r7/2C7/4K5 w - - 0 1", &[])))
        .await
        .unwrap()
        .into_inner();
    assert!(r.moves.iter().any(|m| m.uci.ends_with('t') && m.is_capture), "{r:?}");
    let v = client.validate_move(validate_req(pos("chess", "", &["e4", "d5"]), "exd5")).await.unwrap().into_inner();
    assert!(v.is_capture && !v.check);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_info_names_version_build_and_limits() {
    let (_g, _server, mut client) = started(config()).await;
    let i = client.get_server_info(pb::GetServerInfoRequest {}).await.unwrap().into_inner();
    assert_eq!(i.version, env!("CARGO_PKG_VERSION"));
    assert_eq!(i.api, "menagerie.v1");
    assert!(i.profile == "debug" || i.profile == "release");
    assert!(i.target.contains('-'));
    assert_eq!(i.max_perft_depth, config().max_perft_depth);
    assert_eq!(
        i.variants[..8],
        ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino", "chess960"]
    );
    assert!(i.variants[8..].iter().any(|v| v == "makruk"), "{:?}", i.variants);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_fen_says_why_and_replay_moves_describes_a_whole_list() {
    let (_g, _server, mut client) = started(config()).await;
    let check = |variant: &str, fen: &str| pb::ValidateFenRequest { variant: variant.into(), fen: fen.into() };
    let ok = client.validate_fen(check("alpaca", "")).await.unwrap().into_inner();
    assert!(!ok.valid && ok.reason.contains("empty"), "{ok:?}");
    let ok = client
        .validate_fen(check("alpaca", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] w KQkq - 0 1"))
        .await
        .unwrap()
        .into_inner();
    assert!(ok.valid && ok.reason.is_empty() && ok.fen.contains("[Aa?]"), "{ok:?}");
    for (variant, fen, field) in [
        ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "board"),
        ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side_to_move"),
        ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x", "fullmove_number"),
        ("chess", "8/8/8/8/8/8/8/8 w - - 0 1", ""),
    ] {
        let r = client.validate_fen(check(variant, fen)).await.unwrap().into_inner();
        assert!(!r.valid && !r.reason.is_empty() && r.field == field, "{fen}: {r:?}");
    }
    let e = client.validate_fen(check("tamerlane", "x")).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);

    let r = client
        .replay_moves(pb::ReplayMovesRequest {
            position: pos("alpaca", "", &["accept", "A@g", "A@b", "Nf3", "e5", "Nxe5"]),
        })
        .await
        .unwrap()
        .into_inner();
    let sans: Vec<&str> = r.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, ["accept", "A@g", "A@b", "Nf3(A@g1)", "e5", "Nxe5"]);
    assert!(r.moves[5].is_capture && !r.moves[3].is_capture);
    assert_eq!(r.fen, r.moves[5].fen);
    assert!(r.outcome.is_none() && r.claimable_draw.is_empty());
    assert_bad_field(
        client.replay_moves(pb::ReplayMovesRequest { position: pos("chess", "", &["e4", "zz"]) }).await,
        Code::InvalidArgument,
        "position.moves[1]",
    );
}

/// PGN through the API: every game of the repo's PGN files (every variant)
/// read, written back from its position, tags and result, and read again to
/// the same game; a bad file is refused naming the game, line and move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pgn_of_every_variant_round_trips_through_read_and_write() {
    let (_g, _server, mut client) = started(config()).await;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/pgn");
    let mut variants = std::collections::BTreeSet::new();
    // selfplay.pgn: real engine games, one per variant.
    for file in ["orthodox.pgn", "variants.pgn", "selfplay.pgn"] {
        let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
        let games = client.read_pgn(pb::ReadPgnRequest { pgn: text }).await.unwrap().into_inner().games;
        assert!(!games.is_empty(), "{file}");
        for g in games {
            let p = g.position.clone().unwrap();
            variants.insert(p.variant.clone());
            assert_eq!(g.moves.len(), p.moves.len());
            assert!(g.moves.iter().zip(&p.moves).all(|(m, u)| &m.uci == u && !m.san.is_empty() && !m.fen.is_empty()));
            let written = client
                .write_pgn(pb::WritePgnRequest {
                    position: Some(p.clone()),
                    tags: g.tags.clone(),
                    result: g.result.clone(),
                })
                .await
                .unwrap()
                .into_inner()
                .pgn;
            let again = client.read_pgn(pb::ReadPgnRequest { pgn: written.clone() }).await.unwrap().into_inner().games;
            assert_eq!(again.len(), 1, "{written}");
            assert_eq!(again[0].position, Some(p), "{written}");
            assert_eq!(again[0].tags, g.tags);
            assert_eq!(again[0].result, g.result);
            assert_eq!(again[0].moves, g.moves);
            // The SAN moves of the normalised PGN are the ones listed.
            for m in &g.moves {
                assert!(g.pgn.contains(&m.san), "{} not in {}", m.san, g.pgn);
            }
        }
    }
    assert_eq!(variants.len(), 8, "{variants:?}");

    let bad = std::fs::read_to_string(format!("{dir}/bad.pgn")).unwrap();
    let s = client.read_pgn(pb::ReadPgnRequest { pgn: bad }).await.unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument);
    assert!(s.message().contains("game") && s.message().contains("line"), "{}", s.message());

    // WritePgn: the result defaults to the game's outcome; derived tags and bad results are refused.
    let mate = client
        .write_pgn(pb::WritePgnRequest {
            position: pos("chess", "", &["f3", "e5", "g4", "Qh4"]),
            tags: vec![],
            result: String::new(),
        })
        .await
        .unwrap()
        .into_inner()
        .pgn;
    assert!(mate.contains("[Result \"0-1\"]") && mate.trim_end().ends_with("0-1"), "{mate}");
    let tag = |name: &str| vec![pb::PgnTag { name: name.into(), value: "x".into() }];
    for (tags, result, field) in
        [(tag("FEN"), "", "tags[0]"), (tag("bad name"), "", "tags[0]"), (vec![], "2-0", "result")]
    {
        let r = client.write_pgn(pb::WritePgnRequest { position: start_pos(), tags, result: result.into() }).await;
        assert_bad_field(r, Code::InvalidArgument, field);
    }
    let r = client
        .write_pgn(pb::WritePgnRequest { position: pos("chess", "", &["e4", "Ke7", "Ke3"]), ..Default::default() })
        .await;
    assert_eq!(r.unwrap_err().code(), Code::FailedPrecondition);
}

/// Collects an AnnotateGame stream's events.
async fn annotate_events(
    client: &mut pb::analysis_service_client::AnalysisServiceClient<tonic::transport::Channel>,
    req: pb::AnnotateGameRequest,
) -> Vec<pb::annotate_game_response::Event> {
    let mut stream = client.annotate_game(req).await.unwrap().into_inner();
    let mut out = Vec::new();
    while let Some(m) = stream.message().await.unwrap() {
        out.push(m.event.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotate_game_streams_positions_and_verdicts_then_the_annotated_pgn() {
    use pb::annotate_game_response::Event;
    let (_g, _server, mut client) = started(config()).await;
    // 3...Qg5?? hangs the queen to the bishop on c1.
    let pgn = "[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. d4 exd4 3. Qxd4 Qg5 4. Bxg5 *\n";
    let events = annotate_events(
        &mut client,
        pb::AnnotateGameRequest {
            pgn: pgn.into(),
            nodes: 3_000,
            threads: 2,
            pictures: pb::Pictures::Mistakes as i32,
            ..Default::default()
        },
    )
    .await;
    let Some(Event::Started(started)) = events.first() else { panic!("{events:?}") };
    assert_eq!((started.positions, started.searches, started.workers), (8, 8, 2));
    let positions: Vec<&pb::PositionReview> =
        events.iter().filter_map(|e| if let Event::Position(p) = e { Some(p) } else { None }).collect();
    let mut indices: Vec<u32> = positions.iter().map(|p| p.index).collect();
    indices.sort_unstable();
    assert_eq!(indices, (0..8).collect::<Vec<_>>());
    assert!(positions.iter().all(|p| p.evaluation.is_some() && !p.best_move.is_empty() && !p.pv_san.is_empty()));
    let mut moves: Vec<&pb::MoveReview> =
        events.iter().filter_map(|e| if let Event::Move(m) = e { Some(m) } else { None }).collect();
    moves.sort_by_key(|m| m.ply);
    assert_eq!(
        moves.iter().map(|m| m.played_san.as_str()).collect::<Vec<_>>(),
        ["e4", "e5", "d4", "exd4", "Qxd4", "Qg5", "Bxg5"]
    );
    let blunder = moves[5];
    assert_eq!(blunder.classification, pb::MoveClassification::Blunder as i32, "{blunder:?}");
    assert_eq!(blunder.color, "black");
    assert!(
        blunder.loss >= 15.0 && blunder.svg.starts_with("<svg") && !blunder.best_line_san.is_empty(),
        "{blunder:?}"
    );
    let Some(Event::Summary(summary)) = events.last() else { panic!("no summary last") };
    assert_eq!(summary.variant, "chess");
    assert_eq!(summary.black.as_ref().unwrap().blunders, 1);
    assert!(
        summary.annotated_pgn.contains("[%eval") && summary.annotated_pgn.contains("$4"),
        "{}",
        summary.annotated_pgn
    );
    // The annotated PGN reads back (through the API) as the same game.
    let again = client.read_pgn(pb::ReadPgnRequest { pgn: summary.annotated_pgn.clone() }).await.unwrap().into_inner();
    assert_eq!(again.games[0].moves.len(), 7);

    // A position instead of PGN, in a variant with a prelude; a depth budget.
    let events = annotate_events(
        &mut client,
        pb::AnnotateGameRequest {
            position: pos("alpaca", "", &["accept", "A@g", "A@b", "Nf3", "e5"]),
            depth: 2,
            ..Default::default()
        },
    )
    .await;
    let moves = events.iter().filter(|e| matches!(e, Event::Move(_))).count();
    assert_eq!(moves, 5);
    assert!(matches!(events.last(), Some(Event::Summary(s)) if s.variant == "alpaca"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotate_game_refuses_bad_requests_and_stops_at_the_deadline() {
    // Measures the process's CPU time: nothing else may run meanwhile.
    let (_g, server, mut client) = started_exclusive(config()).await;
    let one = "1. e4 e5 *\n";
    let req = |f: &dyn Fn(&mut pb::AnnotateGameRequest)| {
        let mut r = pb::AnnotateGameRequest { pgn: one.into(), nodes: 1000, ..Default::default() };
        f(&mut r);
        r
    };
    let cases: Vec<(pb::AnnotateGameRequest, Code, &str)> = vec![
        (req(&|r| r.pgn = format!("{one}\n{one}")), Code::InvalidArgument, "pgn"),
        (req(&|r| r.pgn = "1. e4 e4 *".into()), Code::InvalidArgument, "pgn"),
        (req(&|r| r.depth = 3), Code::InvalidArgument, "depth"),
        (req(&|r| r.pictures = 9), Code::InvalidArgument, "pictures"),
        (req(&|r| r.threads = 1_000), Code::OutOfRange, "threads"),
        (
            req(&|r| {
                r.nodes = 0;
                r.depth = 1_000
            }),
            Code::OutOfRange,
            "depth",
        ),
        (
            req(&|r| {
                r.pgn.clear();
                r.position = pos("tamerlane", "", &[])
            }),
            Code::InvalidArgument,
            "position.variant",
        ),
    ];
    for (r, code, field) in cases {
        assert_bad_field(client.annotate_game(r).await.map(|_| ()), code, field);
    }
    // Deep searches of a long game: the deadline ends the stream and the work.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/pgn/long-chess.pgn")).unwrap();
    let mut r = Request::new(pb::AnnotateGameRequest { pgn: text, depth: 60, threads: 2, ..Default::default() });
    r.set_timeout(Duration::from_millis(400));
    let mut stream = client.annotate_game(r).await.unwrap().into_inner();
    let s = stream_error(&mut stream).await;
    assert_eq!(s.code(), Code::DeadlineExceeded, "{s:?}");
    assert_work_stops(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ambiguous_moves_are_bad_arguments_whichever_engine_plays_the_variant() {
    let (_g, _server, mut client) = started(config()).await;
    // Two knights reach the square: a compiled game and one defined as data.
    for (variant, fen, mv) in [
        ("chess", "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nd2"),
        ("capablanca", "4k5/10/10/10/10/2N7/10/2N1K1N3 w - - 0 1", "Ne2"),
    ] {
        let r = client.legal_moves(legal_req(pos(variant, fen, &[mv]))).await;
        assert_bad_field(r, Code::InvalidArgument, "position.moves[0]");
    }
}

// ---------------------------------------------------------------- Variants defined as data

const MAKRUK_START: &str = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1";

/// The precondition-failure subjects of a status.
fn precondition_subjects(s: &Status) -> Vec<String> {
    s.get_error_details()
        .precondition_failure()
        .map(|p| p.violations.iter().map(|v| format!("{}:{}", v.r#type, v.subject)).collect())
        .unwrap_or_default()
}

/// An illegal move, naming the field.
fn assert_illegal<T: std::fmt::Debug>(r: Result<T, Status>, field: &str) {
    let s = r.unwrap_err();
    assert_eq!(s.code(), Code::FailedPrecondition, "{s:?}");
    assert_eq!(precondition_subjects(&s), vec![format!("ILLEGAL_MOVE:{field}")], "{s:?}");
}

async fn start_service(service: AnalysisApi) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let shutdown = async {
        let _ = rx.await;
    };
    let serving = tokio::spawn(serve(service.clone(), listener, shutdown, Duration::from_secs(30)));
    TestServer { service, addr, shutdown: Some(tx), serving }
}

const EXAMPLE_INI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/variants/example.ini");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_variant_perft_streams_divides_and_the_total() {
    let (_g, server, mut client) = started(config()).await;
    let run = perft(&mut client, perft_req(pos("makruk", "", &[]), 4)).await.unwrap();
    assert_eq!(run.total(), 273_026);
    assert_eq!(run.divides.len(), 23);
    assert_eq!(run.divides.iter().map(|d| d.nodes).sum::<u64>(), 273_026);
    assert!(run.divides.iter().all(|d| !d.san.is_empty() && d.r#move.len() == 4), "{:?}", run.divides);
    assert!(run.divides.iter().any(|d| d.r#move == "b1d2" && d.san == "Nd2"), "{:?}", run.divides);
    // One thread, depth 1, and from a FEN after moves.
    let one = pb::PerftRequest { threads: 1, ..perft_req(pos("makruk", MAKRUK_START, &[]), 3) };
    assert_eq!(perft(&mut client, one).await.unwrap().total(), 12_012);
    assert_eq!(perft(&mut client, perft_req(pos("shako", "", &[]), 1)).await.unwrap().total(), 58);
    let after = perft(&mut client, perft_req(pos("makruk", "", &["e3e4", "d6d5"]), 1)).await.unwrap();
    assert!(after.divide_map().contains_key("e4d5"), "{after:?}");
    // Errors as for compiled variants, and no table.
    assert_bad_field(perft(&mut client, perft_req(pos("makruk", "", &[]), 0)).await, Code::InvalidArgument, "depth");
    assert_bad_field(perft(&mut client, perft_req(pos("makruk", "", &[]), 99)).await, Code::OutOfRange, "depth");
    let hashed = pb::PerftRequest { hash_mb: 16, ..perft_req(pos("makruk", "", &[]), 3) };
    assert_bad_field(perft(&mut client, hashed).await, Code::InvalidArgument, "hash_mb");
    assert_illegal(perft(&mut client, perft_req(pos("makruk", "", &["e3e5"]), 2)).await, "position.moves[0]");
    assert_eq!(server.running(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_variant_perft_stops_at_the_deadline_the_caps_and_cancellation() {
    let _g = exclusive().await;
    // The node cap, on a server of its own: whether a capped count meets its
    // cap or a deadline first depends on the machine's speed.
    let capped = start(Config { max_perft_nodes: 2_000_000, ..config() }).await;
    let mut client = capped.client().await;
    let s = bounded("perft", perft(&mut client, perft_req(pos("capablanca", "", &[]), 7))).await.unwrap_err();
    assert_eq!(s.code(), Code::OutOfRange, "{s:?}");
    assert!(s.message().contains("2000000 nodes"), "{s:?}");
    assert_work_stops(&capped).await;
    // The deadline (capablanca perft 8 is about 10^11 nodes: never done in time).
    let server = start(config()).await;
    let mut client = server.client().await;
    assert_stopped_at_deadline(&server, &mut client, perft_req(pos("capablanca", "", &[]), 8)).await;
    // A dropped stream stops its work and gives its slot back.
    let stream = client.perft(perft_req(pos("capablanca", "", &[]), 7)).await.unwrap().into_inner();
    wait_until("the perft to run", || server.running() == 1).await;
    drop(stream);
    assert_work_stops(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_variant_moves_validation_replay_and_fens() {
    let (_g, _server, mut client) = started(config()).await;
    // LegalMoves: coordinate form, SAN, FEN after each move.
    let shako = client.legal_moves(legal_req(pos("shako", "", &[]))).await.unwrap().into_inner();
    assert_eq!(shako.moves.len(), 58);
    assert!(shako.moves.iter().all(|m| !m.san.is_empty() && !m.fen.is_empty() && !m.is_capture && !m.gives_check));
    assert!(shako.moves.iter().any(|m| m.uci == "a1b1" && m.san == "Cab1"), "{shako:?}");
    assert_eq!(shako.side_to_move, "white");
    assert!(!shako.check && shako.outcome.is_none() && shako.claimable_draw.is_empty());
    let makruk = client.legal_moves(legal_req(pos("makruk", "", &["e3e4", "d6d5"]))).await.unwrap().into_inner();
    assert_eq!(makruk.side_to_move, "white");
    let take = makruk.moves.iter().find(|m| m.uci == "e4d5").unwrap();
    assert!(take.is_capture, "{take:?}");

    // ValidateMove.
    let ok = client.validate_move(validate_req(pos("makruk", "", &[]), "e3e4")).await.unwrap().into_inner();
    assert!(ok.legal && ok.uci == "e3e4" && ok.san == "e4" && ok.reason.is_empty(), "{ok:?}");
    assert_eq!(ok.fen, "rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1");
    // SAN is read too, in the move and in the position's moves.
    let by_san = client.validate_move(validate_req(pos("makruk", "", &["e4"]), "Nd7")).await.unwrap().into_inner();
    assert!(by_san.legal && by_san.uci == "b8d7" && by_san.san == "Nd7", "{by_san:?}");
    let no = client.validate_move(validate_req(pos("makruk", "", &[]), "e3e5")).await.unwrap().into_inner();
    assert!(!no.legal && no.reason.contains("e3e5"), "{no:?}");
    let no = client.validate_move(validate_req(pos("makruk", "", &[]), "Nf3")).await.unwrap().into_inner();
    assert!(!no.legal && no.reason.contains("Nf3"), "{no:?}");
    assert_bad_field(
        client.validate_move(validate_req(pos("makruk", "", &[]), "hello")).await,
        Code::InvalidArgument,
        "move",
    );
    let mate = "k9/2K7/10/10/10/10/10/1Q8 w - - 0 1";
    let m = client.validate_move(validate_req(pos("capablanca", mate, &[]), "b1b8")).await.unwrap().into_inner();
    assert!(m.legal && m.check, "{m:?}");
    let o = m.outcome.unwrap();
    assert_eq!((o.result.as_str(), o.winner.as_str(), o.reason.as_str()), ("1-0", "white", "checkmate"));
    let over = client.validate_move(validate_req(pos("capablanca", mate, &["b1b8"]), "a8a7")).await.unwrap();
    assert!(!over.get_ref().legal && over.get_ref().reason.contains("checkmate"), "{over:?}");

    // Extinction: a bare king loses in shatranj once its reply cannot bare
    // the other king; stalemate loses too.
    let bare = "k7/8/8/8/8/8/8/KR6 b - - 0 1";
    let m = client.validate_move(validate_req(pos("shatranj", bare, &[]), "a8a7")).await.unwrap().into_inner();
    assert!(m.legal && !m.check, "{m:?}");
    let o = m.outcome.unwrap();
    assert_eq!((o.result.as_str(), o.winner.as_str(), o.reason.as_str()), ("1-0", "white", "extinction"));
    let over = client.legal_moves(legal_req(pos("shatranj", bare, &["a8a7"]))).await.unwrap().into_inner();
    assert!(over.moves.is_empty() && !over.check, "{over:?}");
    assert_eq!(over.outcome.map(|o| o.reason), Some("extinction".into()));
    let refused = client.validate_move(validate_req(pos("shatranj", bare, &["a8a7"]), "b1b8")).await.unwrap();
    assert!(!refused.get_ref().legal && refused.get_ref().reason.contains("extinction"), "{refused:?}");
    // Flag wins and check counting end the game at once too.
    let hill = "k7/8/8/8/8/3K4/8/8 w - - 0 1";
    let m = client.validate_move(validate_req(pos("kingofthehill", hill, &[]), "d3e4")).await.unwrap().into_inner();
    let o = m.outcome.unwrap();
    assert_eq!((o.result.as_str(), o.winner.as_str(), o.reason.as_str()), ("1-0", "white", "flag"));
    let over = client.legal_moves(legal_req(pos("kingofthehill", hill, &["d3e4"]))).await.unwrap().into_inner();
    assert!(over.moves.is_empty() && over.outcome.map(|o| o.reason) == Some("flag".into()));
    let third = "rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1+1 0 3";
    let m = client.validate_move(validate_req(pos("3check", third, &[]), "f1b5")).await.unwrap().into_inner();
    assert!(m.legal && m.check && m.san == "Bb5#", "{m:?}");
    let o = m.outcome.unwrap();
    assert_eq!((o.result.as_str(), o.winner.as_str(), o.reason.as_str()), ("1-0", "white", "checks"));
    let stalemate = "k7/Q7/1K6/8/8/8/8/8 b - - 0 1";
    let r = client.legal_moves(legal_req(pos("shatranj", stalemate, &[]))).await.unwrap().into_inner();
    let o = r.outcome.unwrap();
    assert_eq!((o.result.as_str(), o.winner.as_str(), o.reason.as_str()), ("1-0", "white", "stalemate"));

    // Bad positions name their field.
    assert_bad_field(
        client.legal_moves(legal_req(pos("makruk", "rnsmksnr/8 w - - 0 1", &[]))).await,
        Code::InvalidArgument,
        "position.fen",
    );
    assert_illegal(client.legal_moves(legal_req(pos("makruk", "", &["e3e4", "e4e5"]))).await, "position.moves[1]");
    assert_bad_field(
        client.legal_moves(legal_req(pos("makruk", "", &["zz"]))).await,
        Code::InvalidArgument,
        "position.moves[0]",
    );
    assert_illegal(client.legal_moves(legal_req(pos("makruk", "", &["e4", "Nf3"]))).await, "position.moves[1]");
    let capped = start(Config { max_moves: 2, ..config() }).await;
    let mut capped_client = capped.client().await;
    assert_bad_field(
        capped_client.legal_moves(legal_req(pos("makruk", "", &["e3e4", "d6d5", "e4d5"]))).await,
        Code::OutOfRange,
        "position.moves",
    );

    // ReplayMoves.
    let r = client
        .replay_moves(pb::ReplayMovesRequest { position: pos("makruk", "", &["e3e4", "d6d5", "e4d5"]) })
        .await
        .unwrap()
        .into_inner();
    let coords: Vec<&str> = r.moves.iter().map(|m| m.uci.as_str()).collect();
    assert_eq!(coords, ["e3e4", "d6d5", "e4d5"]);
    let sans: Vec<&str> = r.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, ["e4", "d5", "exd5"]);
    assert!(r.moves[2].is_capture && !r.moves[1].is_capture);
    let gated = ["e2e4", "d7d5", "g1f3h", "d5e4"];
    let g = client.replay_moves(pb::ReplayMovesRequest { position: pos("seirawan", "", &gated) }).await.unwrap();
    let sans: Vec<&str> = g.get_ref().moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, ["e4", "d5", "Nf3/H", "dxe4"]);
    assert_eq!(r.fen, r.moves[2].fen);
    // En passant takes; gating a piece does not.
    let ep = ["e2e4", "a7a6", "e4e5", "d7d5", "e5d6"];
    let r = client.replay_moves(pb::ReplayMovesRequest { position: pos("capablanca", "", &ep) }).await.unwrap();
    let takes: Vec<bool> = r.get_ref().moves.iter().map(|m| m.is_capture).collect();
    assert_eq!(takes, [false, false, false, false, true]);
    let gating = ["e2e4", "d7d5", "g1f3h", "d5e4"];
    let r = client.replay_moves(pb::ReplayMovesRequest { position: pos("seirawan", "", &gating) }).await.unwrap();
    let takes: Vec<bool> = r.get_ref().moves.iter().map(|m| m.is_capture).collect();
    assert_eq!(takes, [false, false, false, true]);
    assert_bad_field(
        client.replay_moves(pb::ReplayMovesRequest { position: pos("makruk", "", &["e3e4", "zz"]) }).await,
        Code::InvalidArgument,
        "position.moves[1]",
    );

    // Game rules: a third occurrence is a claimable draw, as is the n-move rule.
    let bare = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let shuffle = ["a1a2", "e8d8", "a2a1", "d8e8", "a1a2", "e8d8", "a2a1", "d8e8"];
    let r = client.legal_moves(legal_req(pos("makruk", bare, &shuffle))).await.unwrap().into_inner();
    assert_eq!((r.claimable_draw.as_str(), r.outcome), ("repetition", None));
    let r = client.legal_moves(legal_req(pos("makruk", bare, &shuffle[..4]))).await.unwrap().into_inner();
    assert_eq!(r.claimable_draw, "");
    let fifty = "4k5/10/10/10/10/10/10/R3K5 w - - 99 80";
    let v = client.validate_move(validate_req(pos("capablanca", fifty, &[]), "a1a2")).await.unwrap().into_inner();
    assert!(v.legal && v.claimable_draw == "n_move_rule" && v.outcome.is_none(), "{v:?}");

    // ValidateFen.
    let check = |variant: &str, fen: &str| pb::ValidateFenRequest { variant: variant.into(), fen: fen.into() };
    let v = client.validate_fen(check("makruk", MAKRUK_START)).await.unwrap().into_inner();
    assert!(v.valid && v.fen == MAKRUK_START, "{v:?}");
    for (fen, field) in [
        ("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNX w - - 0 1", "board"),
        ("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR x - - 0 1", "side_to_move"),
        ("", ""),
    ] {
        let r = client.validate_fen(check("makruk", fen)).await.unwrap().into_inner();
        assert!(!r.valid && !r.reason.is_empty() && r.field == field, "{fen}: {r:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_variant_batch_jobs_by_position_and_epd() {
    let (_g, _server, mut client) = started(config()).await;
    let jobs = vec![
        pb::PerftBatchRequest {
            id: "makruk".into(),
            position: pos("makruk", "", &[]),
            expected: vec![pb::DepthCount { depth: 2, nodes: 529 }, pb::DepthCount { depth: 3, nodes: 12_012 }],
            ..Default::default()
        },
        epd_job("shatranj-epd", "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1 ;D2 256 ;variant shatranj"),
        pb::PerftBatchRequest {
            id: "default-variant".into(),
            epd: format!("{MAKRUK_START} ;D3 12012"),
            default_variant: "makruk".into(),
            ..Default::default()
        },
        pb::PerftBatchRequest {
            id: "wrong".into(),
            position: pos("makruk", "", &[]),
            expected: vec![pb::DepthCount { depth: 2, nodes: 1 }],
            ..Default::default()
        },
        pb::PerftBatchRequest { id: "bad-fen".into(), epd: "x ;D1 1 ;variant makruk".into(), ..Default::default() },
    ];
    let mut stream = client.perft_batch(tokio_stream::iter(jobs)).await.unwrap().into_inner();
    let mut results = Vec::new();
    while let Some(r) = stream.message().await.unwrap() {
        results.push(r);
    }
    let by_id = |id: &str| results.iter().find(|r| r.id == id).unwrap();
    for id in ["makruk", "shatranj-epd", "default-variant"] {
        let r = by_id(id);
        assert!(r.pass && r.error.is_empty() && !r.depths.is_empty(), "{r:?}");
    }
    assert!(!by_id("wrong").pass && by_id("wrong").depths[0].actual == 529);
    assert_eq!(by_id("bad-fen").error_code, "INVALID_ARGUMENT", "{:?}", by_id("bad-fen"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_variants_are_analysed() {
    let (_g, server, mut client) = started(config()).await;
    // A mate in one in capablanca (two: Qb8# and Qa1#).
    let mate = "k9/2K7/10/10/10/10/10/1Q8 w - - 0 1";
    let best = pb::BestMoveRequest { position: pos("capablanca", mate, &[]), depth: 4, ..Default::default() };
    let r = client.best_move(best).await.unwrap().into_inner();
    let mates = [("b1b8", "Qb8#"), ("b1a1", "Qa1#")];
    assert!(mates.contains(&(r.best_move.as_str(), r.best_move_san.as_str())), "{r:?}");
    assert_eq!(r.score.and_then(|s| s.value), Some(pb::score::Value::Mate(1)));
    // The Analyze stream: an info per depth with its lines in both forms,
    // multipv honoured, then the best move; moves given in SAN.
    let req =
        pb::AnalyzeRequest { position: pos("makruk", "", &["e4", "e5"]), depth: 4, multipv: 2, ..Default::default() };
    let mut stream = client.analyze(req).await.unwrap().into_inner();
    let (mut infos, mut best) = (Vec::new(), None);
    while let Some(ev) = stream.message().await.unwrap() {
        match ev.event.unwrap() {
            pb::analyze_response::Event::Info(i) => infos.push(i),
            pb::analyze_response::Event::BestMove(b) => best = Some(b),
        }
    }
    assert_eq!(infos.last().map(|i| i.depth), Some(4), "{infos:?}");
    for i in &infos {
        assert_eq!(i.lines.len(), 2, "{i:?}");
        assert!(i.lines.iter().all(|l| !l.pv.is_empty() && l.pv.len() == l.pv_san.len()), "{i:?}");
    }
    let b = best.unwrap();
    let legal = client.legal_moves(legal_req(pos("makruk", "", &["e4", "e5"]))).await.unwrap().into_inner();
    assert!(legal.moves.iter().any(|m| m.uci == b.best_move && m.san == b.best_move_san), "{b:?}");
    // No analysis once the game is over.
    let over = pb::BestMoveRequest { position: pos("capablanca", mate, &["b1b8"]), depth: 2, ..Default::default() };
    let s = client.best_move(over).await.unwrap_err();
    assert_eq!(s.code(), Code::FailedPrecondition, "{s:?}");
    assert!(s.message().contains("checkmate"), "{s:?}");
    // Limits are checked as for every variant.
    let deep = pb::BestMoveRequest { position: pos("makruk", "", &[]), depth: 10_000, ..Default::default() };
    assert_eq!(client.best_move(deep).await.unwrap_err().code(), Code::OutOfRange);
    assert_eq!(server.running(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_variant_pgn_is_written_and_read_back() {
    let (_g, server, mut client) = started(config()).await;
    // WritePgn: SAN movetext with the Variant tag.
    let write =
        |position, tags: Vec<pb::PgnTag>, result: &str| pb::WritePgnRequest { position, tags, result: result.into() };
    let tag = |name: &str, value: &str| pb::PgnTag { name: name.into(), value: value.into() };
    let moves = ["e2e4", "e7e5", "i1h3", "b8c6"];
    let req = write(pos("capablanca", "", &moves), vec![tag("White", "A"), tag("Opening", "x")], "");
    let written = client.write_pgn(req).await.unwrap().into_inner().pgn;
    assert!(
        written.contains("[White \"A\"]\n[Black \"?\"]\n[Result \"*\"]\n[Variant \"capablanca\"]\n[Opening \"x\"]\n")
    );
    assert!(written.contains("\n\n1. e4 e5 2. Nh3 Nc6 *\n"), "{written}");
    assert!(!written.contains("FEN"), "{written}");
    // ReadPgn reads it back to the same moves and FENs.
    let games = client.read_pgn(pb::ReadPgnRequest { pgn: written.clone() }).await.unwrap().into_inner().games;
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(g.position, pos("capablanca", "", &moves));
    assert_eq!(g.moves.iter().map(|m| m.uci.as_str()).collect::<Vec<_>>(), moves);
    assert_eq!(g.moves.iter().map(|m| m.san.as_str()).collect::<Vec<_>>(), ["e4", "e5", "Nh3", "Nc6"]);
    let replay = client
        .replay_moves(pb::ReplayMovesRequest { position: pos("capablanca", "", &moves) })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        g.moves.iter().map(|m| m.fen.clone()).collect::<Vec<_>>(),
        replay.moves.iter().map(|m| m.fen.clone()).collect::<Vec<_>>()
    );
    assert_eq!((g.result.as_str(), g.pgn.as_str()), ("*", written.as_str()));
    assert!(g.tags.contains(&tag("Opening", "x")), "{g:?}");

    // From a set-up makruk position, in SAN; the result of a mate is found.
    let fen = "rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1";
    let written = client.write_pgn(write(pos("makruk", fen, &["e5"]), vec![], "")).await.unwrap().into_inner().pgn;
    assert!(written.contains(&format!("[Variant \"makruk\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n")), "{written}");
    assert!(written.contains("\n\n1... e5 *\n"), "{written}");
    let games = client.read_pgn(pb::ReadPgnRequest { pgn: written }).await.unwrap().into_inner().games;
    assert_eq!(games[0].position, pos("makruk", fen, &["e6e5"]));
    let mate = "k9/2K7/10/10/10/10/10/1Q8 w - - 0 1";
    let written = client.write_pgn(write(pos("capablanca", mate, &["b1b8"]), vec![], "")).await.unwrap().into_inner();
    assert!(written.pgn.contains("[Result \"1-0\"]") && written.pgn.contains("1. Qb8# 1-0"), "{}", written.pgn);
    // Compiled and data games in one text.
    let both = format!("1. e4 *\n\n{}", written.pgn);
    let games = client.read_pgn(pb::ReadPgnRequest { pgn: both }).await.unwrap().into_inner().games;
    let names: Vec<_> = games.iter().map(|g| g.position.as_ref().unwrap().variant.as_str()).collect();
    assert_eq!(names, ["chess", "capablanca"]);

    // Errors as for the compiled variants: INVALID_ARGUMENT naming the PGN.
    for (bad, says) in [
        ("[Variant \"makruk\"]\n\n1. e4 e4 *\n", "move 1... (Black): 'e4' is illegal"),
        ("[Variant \"capablanca\"]\n[FEN \"junk\"]\n\n*\n", "bad FEN tag 'junk' for capablanca"),
        ("[Variant \"makruk\"]\n\n1. e4 {open *\n", "never closed"),
        ("[Variant \"no-such\"]\n\n*\n", "unknown variant 'no-such'"),
    ] {
        let s = client.read_pgn(pb::ReadPgnRequest { pgn: bad.into() }).await.unwrap_err();
        assert_eq!(s.code(), Code::InvalidArgument, "{s:?}");
        assert_eq!(bad_fields(&s), ["pgn"], "{s:?}");
        assert!(s.message().contains("game 1") && s.message().contains(says), "{bad}: {}", s.message());
    }
    assert_bad_field(
        client.write_pgn(write(pos("makruk", "", &[]), vec![tag("FEN", "x")], "")).await,
        Code::InvalidArgument,
        "tags[0]",
    );
    assert_bad_field(
        client.write_pgn(write(pos("makruk", "", &[]), vec![], "2-0")).await,
        Code::InvalidArgument,
        "result",
    );
    assert_illegal(client.write_pgn(write(pos("makruk", "", &["e3e5"]), vec![], "")).await, "position.moves[0]");
    assert_eq!(server.running(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn render_board_draws_data_variants() {
    let (_g, server, mut client) = started(config()).await;
    let req = pb::RenderBoardRequest { position: pos("capablanca", "", &[]), ..Default::default() };
    let svg = client.render_board(req).await.unwrap().into_inner().svg;
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("class=\"square ").count(), 80);
    assert_eq!(svg.matches("class=\"piece ").count(), 40);
    assert!(svg.contains("white-letter-a") && svg.contains("black-letter-c") && svg.contains("white-king"));
    // The last move, arrows and highlights on the data variant's board.
    let req = marked_board(pos("capablanca", "", &["e2e4", "Nh6"]), "j1a8:red", "j8");
    let svg = client.render_board(req).await.unwrap().into_inner().svg;
    assert!(svg.contains("width=\"300\"") && svg.contains("arrow-j1a8") && svg.matches("last-move").count() == 2);
    // Bad fields are named as for the compiled variants.
    let bad = |arrows: Vec<String>, moves: &[&str]| pb::RenderBoardRequest {
        position: pos("makruk", "", moves),
        arrows,
        ..Default::default()
    };
    assert_bad_field(client.render_board(bad(vec!["a1i1".into()], &[])).await, Code::InvalidArgument, "arrows[0]");
    assert_illegal(client.render_board(bad(vec![], &["e3e5"])).await, "position.moves[0]");
    assert_eq!(server.running(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotate_game_reviews_data_variants() {
    use pb::annotate_game_response::Event;
    let (_g, server, mut client) = started(config()).await;
    // By position, with pictures of the variant's board.
    let req = pb::AnnotateGameRequest {
        position: pos("capablanca", "", &["e2e4", "e7e5", "i1h3"]),
        depth: 2,
        pictures: pb::Pictures::All as i32,
        ..Default::default()
    };
    let events = annotate_events(&mut client, req).await;
    let positions = events.iter().filter(|e| matches!(e, Event::Position(_))).count();
    assert_eq!(positions, 4);
    let mut moves: Vec<&pb::MoveReview> =
        events.iter().filter_map(|e| if let Event::Move(m) = e { Some(m) } else { None }).collect();
    moves.sort_by_key(|m| m.ply);
    assert_eq!(moves.iter().map(|m| m.played_san.as_str()).collect::<Vec<_>>(), ["e4", "e5", "Nh3"]);
    assert_eq!(moves.iter().map(|m| m.played.as_str()).collect::<Vec<_>>(), ["e2e4", "e7e5", "i1h3"]);
    assert!(moves.iter().all(|m| m.svg.matches("class=\"square ").count() == 80 && !m.best_move.is_empty()));
    let Some(Event::Summary(summary)) = events.last() else { panic!("no summary last") };
    assert_eq!(summary.variant, "capablanca");
    let annotated = &summary.annotated_pgn;
    assert!(annotated.contains("[Variant \"capablanca\"]") && annotated.contains("[%eval"), "{annotated}");
    let again = client.read_pgn(pb::ReadPgnRequest { pgn: annotated.clone() }).await.unwrap().into_inner();
    assert_eq!(again.games[0].position, pos("capablanca", "", &["e2e4", "e7e5", "i1h3"]));

    // By PGN.
    let pgn = "[Event \"?\"]\n[Variant \"Makruk\"]\n\n1. e4 e5 *\n";
    let req = pb::AnnotateGameRequest { pgn: pgn.into(), depth: 1, ..Default::default() };
    let events = annotate_events(&mut client, req).await;
    let Some(Event::Summary(summary)) = events.last() else { panic!("no summary last") };
    assert_eq!(summary.variant, "makruk");
    assert!(summary.annotated_pgn.contains("1. e4"), "{}", summary.annotated_pgn);

    // Bad games are refused before a job slot is taken.
    let before = server.service.jobs().stats.started.load(Ordering::Relaxed);
    let bad =
        pb::AnnotateGameRequest { pgn: "[Variant \"makruk\"]\n\n1. e5 *\n".into(), depth: 1, ..Default::default() };
    assert_bad_field(client.annotate_game(bad).await.map(|_| ()), Code::InvalidArgument, "pgn");
    let bad = pb::AnnotateGameRequest { position: pos("makruk", "", &["e3e5"]), depth: 1, ..Default::default() };
    assert_illegal(client.annotate_game(bad).await.map(|_| ()), "position.moves[0]");
    assert_eq!(server.service.jobs().stats.started.load(Ordering::Relaxed), before);
    assert_eq!(server.running(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_users_variants_file_is_served() {
    let _g = shared().await;
    let mut c = config();
    c.variants = vec![EXAMPLE_INI.into()];
    let server = start_service(AnalysisApi::try_new(c).unwrap()).await;
    let mut client = server.client().await;
    let variants = client.list_variants(pb::ListVariantsRequest {}).await.unwrap().into_inner().variants;
    let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
    assert!(names[8..].contains(&"centaurs") && names[8..].contains(&"cannons"), "{names:?}");
    let cannons = variants.iter().find(|v| v.name == "cannons").unwrap();
    assert!(cannons.defined_as_data && (cannons.files, cannons.ranks) == (10, 8), "{cannons:?}");
    assert_eq!(perft(&mut client, perft_req(pos("centaurs", "", &[]), 4)).await.unwrap().total(), 222_973);
    let info = client.get_server_info(pb::GetServerInfoRequest {}).await.unwrap().into_inner();
    assert!(info.variants.iter().any(|v| v == "centaurs"), "{info:?}");
    // Without the file the names are unknown.
    let plain = start(config()).await;
    assert_bad_field(
        plain.client().await.perft(perft_req(pos("centaurs", "", &[]), 1)).await,
        Code::InvalidArgument,
        "position.variant",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_users_variant_with_compiled_rules_is_counted_by_the_compiled_core() {
    let _g = exclusive().await;
    let dir = tempfile::tempdir().unwrap();
    let ini = dir.path().join("displacement.ini");
    let text = "[displacement:chess]\nstartFen = rbnqknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNQKNBR w KQkq - 0 1\n";
    std::fs::write(&ini, text).unwrap();
    let mut c = config();
    c.variants = vec![ini.to_str().unwrap().into()];
    let server = start_service(AnalysisApi::try_new(c).unwrap()).await;
    let mut client = server.client().await;
    // Counted by the compiled chess code (the data core gives the same
    // 202,002), divided in the data core's notation.
    let run = perft(&mut client, perft_req(pos("displacement", "", &[]), 4)).await.unwrap();
    assert_eq!(run.total(), 202_002);
    assert_eq!(run.divides.len(), 20);
    assert!(run.divides.iter().any(|d| d.r#move == "c1d3" && d.san == "Nd3"), "{:?}", run.divides);
    // Deadlines and cancellation stop the compiled count too.
    assert_stopped_at_deadline(&server, &mut client, perft_req(pos("displacement", "", &[]), 8)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_loads_variants_files_and_refuses_a_bad_one() {
    let _g = shared().await;
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ini");
    std::fs::write(&bad, "[broken:chess]\nmaxFile = 10\ncustomPiece1 = o:mRcpQ!!\n").unwrap();
    // With --strict-variants a section that cannot be played stops the server.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie-server"))
        .args(["--listen", "127.0.0.1:0", "--strict-variants", "--variants"])
        .arg(format!("{EXAMPLE_INI},{}", bad.display()))
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("{}:3: key 'customPiece1'", bad.display())), "{stderr}");
    // The same through the environment.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie-server"))
        .args(["--listen", "127.0.0.1:0"])
        .env("MENAGERIE_VARIANTS", &bad)
        .env("MENAGERIE_STRICT_VARIANTS", "true")
        .output()
        .unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("bad.ini:3"), "{out:?}");
    // Without it the section is skipped (and logged) and the rest are served.
    let both = format!("{EXAMPLE_INI},{}", bad.display());
    let (mut child, _lines, mut client) = spawn_binary(&["--variants", &both]).await;
    let names: Vec<String> = client
        .list_variants(pb::ListVariantsRequest {})
        .await
        .map(|r| r.into_inner().variants.into_iter().map(|v| v.name).collect())
        .unwrap_or_default();
    let _ = child.kill();
    let _ = child.wait();
    assert!(names.iter().any(|n| n == "cannons") && !names.iter().any(|n| n == "broken"), "{names:?}");

    // A good file is served by the binary.
    let (mut child, _lines, mut client) = spawn_binary(&["--variants", EXAMPLE_INI]).await;
    let moves = client.legal_moves(legal_req(pos("cannons", "", &[]))).await;
    let _ = child.kill();
    let _ = child.wait();
    assert!(!moves.unwrap().into_inner().moves.is_empty());
}

/// The BadRequest field violation's description of a misspelt variant names
/// the closest known one; a name far from every variant gets the list alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misspelt_variant_gets_the_closest_name_suggested() {
    let (_g, _server, mut client) = started(config()).await;
    let description = |s: &Status| {
        let details = s.get_error_details();
        let violations = details.bad_request().map(|b| b.field_violations.clone()).unwrap_or_default();
        assert_eq!(violations.len(), 1, "{s:?}");
        violations[0].description.clone()
    };
    for (wrong, meant) in [("camel-rino", "camel-rhino"), ("Makruck", "makruk"), ("alsied", "alseid")] {
        let hint = format!("did you mean '{meant}'?");
        let s = client.legal_moves(legal_req(pos(wrong, "", &[]))).await.unwrap_err();
        assert_eq!((s.code(), bad_fields(&s)), (Code::InvalidArgument, vec!["position.variant".to_string()]));
        assert!(description(&s).contains(&hint) && description(&s).contains("(known: chess, "), "{s:?}");
        assert!(s.message().contains(&hint), "{s:?}");
        let fen = pb::ValidateFenRequest { variant: wrong.into(), fen: String::new() };
        let s = client.validate_fen(fen).await.unwrap_err();
        assert_eq!(bad_fields(&s), vec!["variant".to_string()], "{s:?}");
        assert!(description(&s).contains(&hint), "{s:?}");
        // A PGN's Variant tag too.
        let pgn = format!("[Variant \"{wrong}\"]\n\n1. e4 *\n");
        let s = client.read_pgn(pb::ReadPgnRequest { pgn }).await.unwrap_err();
        assert_eq!(bad_fields(&s), vec!["pgn".to_string()], "{s:?}");
        assert!(description(&s).contains(&hint), "{s:?}");
    }
    let s = client.legal_moves(legal_req(pos("tamerlane", "", &[]))).await.unwrap_err();
    assert!(!description(&s).contains("did you mean") && description(&s).contains("(known: chess, "), "{s:?}");
    // A PGN of a variant defined as data reads as it always did.
    let pgn = "[Variant \"makruk\"]\n\n1. e4 d5 *\n".to_string();
    let games = client.read_pgn(pb::ReadPgnRequest { pgn }).await.unwrap().into_inner().games;
    assert_eq!(games[0].position.as_ref().map(|p| p.variant.as_str()), Some("makruk"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn best_move_gives_win_draw_loss_chances_from_the_games_model() {
    let _g = shared().await;
    let server = start(config()).await;
    let client = server.client().await;
    let chances = |variant: &'static str, fen: &'static str| {
        let mut client = client.clone();
        async move {
            let r = client
                .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest {
                    depth: 4,
                    ..analyze_req(pos(variant, fen, &[]))
                }))
                .await
                .unwrap()
                .into_inner();
            r.wdl.unwrap_or_else(|| panic!("{variant} {fen}: no chances in {r:?}"))
        }
    };
    // A queen up: the side to move wins nearly always; a queen down, the
    // mirror image; a mate found: certain.
    let up = chances("chess", "4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1").await;
    assert!(up.win > 900 && up.loss < 10, "{up:?}");
    let down = chances("chess", "4k3/3q4/8/8/8/8/8/4K3 w - - 0 1").await;
    assert!(down.loss > 900 && down.win < 10, "{down:?}");
    let mate = chances("chess", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").await;
    assert_eq!((mate.win, mate.draw, mate.loss), (1000, 0, 0));
    // The start of a data variant has chances too, adding up to 1000.
    let makruk = chances("makruk", "").await;
    assert_eq!(makruk.win + makruk.draw + makruk.loss, 1000, "{makruk:?}");
    assert!(makruk.win.abs_diff(makruk.loss) < 200, "an even start: {makruk:?}");
}
