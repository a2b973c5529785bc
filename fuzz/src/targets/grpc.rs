//! `grpc`: whole request messages, decoded with prost and served in-process
//! by the real [`AnalysisApi`] (through the tonic `Analysis` trait) on a
//! current-thread tokio runtime.
//!
//! Input: one selector byte (the RPC, modulo 14: ListVariants, ValidateMove,
//! LegalMoves, Perft, PerftBatch, Analyze, BestMove, RenderBoard,
//! ValidateFen, ReplayMoves, GetServerInfo, ReadPgn, WritePgn,
//! AnnotateGame), then the encoded
//! request; for PerftBatch a sequence of length-delimited `PerftBatchRequest`s, each
//! sent as one gRPC frame of the request stream. Bytes that prost cannot
//! decode end the input (that is prost's business, not the service's).
//!
//! Invariants: no panic on any thread (the service catches job panics and
//! answers INTERNAL; the harness's panic hook sees them first); no INTERNAL
//! or UNKNOWN status; every call — unary reply or the whole drained stream —
//! ends within [`bound()`] (3 s); every FEN the service returns parses in the
//! request's variant; a perft total equals the sum of its divide counts; a
//! rendered board is an SVG document; a FEN judged valid is parsed and
//! written back unchanged by the notation crate; a replay answers one
//! move per requested move; PGN that WritePgn writes, ReadPgn reads back
//! with the same moves; a finished AnnotateGame stream starts with
//! `started` and ends with `summary`, with one move verdict per move.
//! Requests carry `grpc-timeout: 1000m`, so deep work must stop with
//! DEADLINE_EXCEEDED well inside the bound.

use crate::mutate::Mutator;
use crate::rng::Rng;
use bytes::Bytes;
use clap::Parser;
use menagerie_analysis_server::{AnalysisApi, Config};
use menagerie_api::pb::{self, analysis_service_server::AnalysisService};
use menagerie_app::{DataPosition, VariantRef, Variants};
use menagerie_notation::fen;
use menagerie_variants::VariantId;
use prost::Message;
use std::time::Duration;
use tokio::runtime::Runtime;
use tokio_stream::{Stream, StreamExt};
use tonic::codec::Codec;
use tonic::metadata::MetadataValue;
use tonic::{Code, Request, Response, Status, Streaming};

/// The longest any call may take by default, reply or drained stream included.
pub const BOUND: Duration = Duration::from_secs(3);

/// The bound in force: [`BOUND`], or `MENAGERIE_FUZZ_GRPC_BOUND_MS` when set
/// (raise it for runs on a heavily loaded machine, where a niced process
/// can wait seconds for a core).
pub fn bound() -> Duration {
    static B: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *B.get_or_init(|| {
        std::env::var("MENAGERIE_FUZZ_GRPC_BOUND_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(BOUND, Duration::from_millis)
    })
}

/// The deadline each request carries (`grpc-timeout`).
const REQUEST_TIMEOUT: &str = "1000m";

/// RPC names, by selector.
pub const RPCS: &[&str] = &[
    "ListVariants",
    "ValidateMove",
    "LegalMoves",
    "Perft",
    "PerftBatch",
    "Analyze",
    "BestMove",
    "RenderBoard",
    "ValidateFen",
    "ReplayMoves",
    "GetServerInfo",
    "ReadPgn",
    "WritePgn",
    "AnnotateGame",
];

/// Server flags: small caps so that every request is cheap.
pub const SERVER_ARGS: &[&str] = &[
    "menagerie-server",
    "--max-jobs",
    "4",
    "--max-threads",
    "2",
    "--max-perft-depth",
    "3",
    "--max-perft-hash-mb",
    "1",
    "--max-analysis-depth",
    "6",
    "--max-analysis-nodes",
    "20000",
    "--max-analysis-ms",
    "50",
    "--default-analysis-ms",
    "5",
    "--max-multipv",
    "4",
    "--analysis-hash-mb",
    "1",
    "--max-moves",
    "64",
    "--progress-ms",
    "10",
];

struct Harness {
    rt: Runtime,
    service: AnalysisApi,
}

thread_local! {
    static HARNESS: Option<Harness> = {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().ok();
        let _entered = rt.as_ref().map(Runtime::enter);
        let service = AnalysisApi::new(Config::parse_from(SERVER_ARGS));
        // The service installs its own panic hook (a log line); take it back.
        crate::driver::claim_panic_hook();
        rt.map(|rt| Harness { rt, service })
    };
}

/// Runs one input; `true` if the request decoded and was answered with a response.
pub fn run(data: &[u8]) -> bool {
    let Some((&selector, body)) = data.split_first() else { return false };
    HARNESS.with(|h| {
        let Some(h) = h else { panic!("could not build a tokio runtime") };
        let rpc = usize::from(selector) % RPCS.len();
        let limit = bound();
        match h.rt.block_on(async { tokio::time::timeout(limit, serve(&h.service, rpc, body)).await }) {
            Ok(answered) => answered,
            Err(_) => panic!("{} gave no complete answer within {limit:?}", RPCS[rpc]),
        }
    })
}

fn request<T>(msg: T) -> Request<T> {
    let mut r = Request::new(msg);
    r.metadata_mut().insert("grpc-timeout", MetadataValue::from_static(REQUEST_TIMEOUT));
    r
}

/// A status that is not a documented error is a finding.
fn check_status(rpc: &str, s: &Status) {
    assert!(!matches!(s.code(), Code::Internal | Code::Unknown), "{rpc} answered {:?}: {}", s.code(), s.message());
}

/// The start FEN a position names (its own, or its variant's start).
fn fen_of_start(p: Option<&pb::Position>) -> String {
    let p = p.cloned().unwrap_or_default();
    if !p.fen.is_empty() {
        return p.fen;
    }
    let name = if p.variant.is_empty() { "chess" } else { p.variant.as_str() };
    match Variants::builtin().find(name) {
        Ok(VariantRef::Compiled(v)) => fen::format(&menagerie_variants::AnyPosition::start(v)),
        Ok(VariantRef::Data(def)) => DataPosition::start(&def).fen(),
        Err(_) => String::new(),
    }
}

/// Checks the FEN of a position's answer and the FEN after each of its
/// moves (`after`).
fn check_fens<'a>(rpc: &str, position: Option<&pb::Position>, fen: &str, after: impl Iterator<Item = &'a str>) {
    check_fen(rpc, position, fen);
    for text in after {
        check_fen(rpc, position, text);
    }
}

fn check_fen(rpc: &str, position: Option<&pb::Position>, text: &str) {
    let name = position.map_or("", |p| p.variant.as_str());
    let name = if name.is_empty() { "chess" } else { name };
    match Variants::builtin().find(name) {
        Ok(VariantRef::Compiled(v)) => {
            if let Err(e) = fen::parse(v, text) {
                panic!("{rpc} returned FEN {text:?}, which does not parse in {v}: {e}");
            }
        }
        Ok(VariantRef::Data(def)) => {
            if let Err(e) = DataPosition::from_fen(&def, text) {
                panic!("{rpc} returned FEN {text:?}, which does not parse in {name}: {e}");
            }
        }
        Err(_) => panic!("{rpc} served unknown variant {name:?}"),
    }
}

fn unary<T>(rpc: &str, r: Result<Response<T>, Status>) -> Option<T> {
    match r {
        Ok(resp) => Some(resp.into_inner()),
        Err(s) => {
            check_status(rpc, &s);
            None
        }
    }
}

async fn drain<T, S: Stream<Item = Result<T, Status>> + Unpin>(rpc: &str, mut stream: S) -> Vec<T> {
    let mut out = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(x) => out.push(x),
            Err(s) => check_status(rpc, &s),
        }
    }
    out
}

async fn serve(svc: &AnalysisApi, rpc: usize, body: &[u8]) -> bool {
    let name = RPCS[rpc];
    match rpc {
        0 => {
            let Ok(m) = pb::ListVariantsRequest::decode(body) else { return false };
            let Some(r) = unary(name, svc.list_variants(request(m)).await) else { return false };
            for v in &r.variants {
                check_fen(name, Some(&pb::Position { variant: v.name.clone(), ..Default::default() }), &v.start_fen);
            }
            true
        }
        1 => {
            let Ok(m) = pb::ValidateMoveRequest::decode(body) else { return false };
            let position = m.position.clone();
            let Some(r) = unary(name, svc.validate_move(request(m)).await) else { return false };
            if r.legal {
                assert!(!r.uci.is_empty() && !r.san.is_empty(), "{name}: a legal move without uci/san: {r:?}");
                check_fen(name, position.as_ref(), &r.fen);
            }
            true
        }
        2 => {
            let Ok(m) = pb::LegalMovesRequest::decode(body) else { return false };
            let position = m.position.clone();
            let Some(r) = unary(name, svc.legal_moves(request(m)).await) else { return false };
            check_fens(name, position.as_ref(), &r.fen, r.moves.iter().map(|lm| lm.fen.as_str()));
            true
        }
        3 => {
            let Ok(m) = pb::PerftRequest::decode(body) else { return false };
            let depth = m.depth;
            let Some(stream) = unary(name, svc.perft(request(m)).await) else { return false };
            let events = drain(name, stream).await;
            let mut divided = 0u64;
            let mut total = None;
            for e in events {
                match e.event {
                    Some(pb::perft_response::Event::Divide(d)) => divided += d.nodes,
                    Some(pb::perft_response::Event::Total(t)) => total = Some(t.nodes),
                    _ => {}
                }
            }
            if let Some(t) = total {
                assert_eq!(t, divided, "{name} depth {depth}: total {t} != sum of divide {divided}");
            }
            true
        }
        4 => {
            let mut frames = Vec::new();
            let mut rest = body;
            while !rest.is_empty() {
                let Ok(len) = prost::encoding::decode_varint(&mut rest) else { break };
                let Some(chunk) = usize::try_from(len).ok().and_then(|n| rest.get(..n)) else { break };
                rest = &rest[chunk.len()..];
                if pb::PerftBatchRequest::decode(chunk).is_err() {
                    break;
                }
                frames.push(0u8);
                frames.extend_from_slice(&(chunk.len() as u32).to_be_bytes());
                frames.extend_from_slice(chunk);
            }
            let decoder = tonic_prost::ProstCodec::<pb::PerftBatchResponse, pb::PerftBatchRequest>::default().decoder();
            let body = tonic::body::Body::new(http_body_util::Full::new(Bytes::from(frames)));
            let input = Streaming::new_request(decoder, body, None, None);
            let Some(stream) = unary(name, svc.perft_batch(request(input)).await) else { return false };
            for r in drain(name, stream).await {
                assert!(
                    r.error_code != "INTERNAL" && r.error_code != "UNKNOWN",
                    "{name}: job {:?} failed with {}: {}",
                    r.id,
                    r.error_code,
                    r.error
                );
            }
            true
        }
        7 => {
            let Ok(m) = pb::RenderBoardRequest::decode(body) else { return false };
            let Some(r) = unary(name, svc.render_board(request(m)).await) else { return false };
            assert!(r.svg.starts_with("<svg") && r.svg.trim_end().ends_with("</svg>"), "{name}: not an SVG document");
            true
        }
        8 => {
            let Ok(m) = pb::ValidateFenRequest::decode(body) else { return false };
            let position = pb::Position { variant: m.variant.clone(), ..Default::default() };
            let Some(r) = unary(name, svc.validate_fen(request(m)).await) else { return false };
            if r.valid {
                assert!(r.reason.is_empty(), "{name}: valid with a reason: {r:?}");
                check_fen(name, Some(&position), &r.fen);
            } else {
                assert!(!r.reason.is_empty(), "{name}: invalid without a reason: {r:?}");
            }
            true
        }
        9 => {
            let Ok(m) = pb::ReplayMovesRequest::decode(body) else { return false };
            let position = m.position.clone();
            let asked = position.as_ref().map_or(0, |p| p.moves.len());
            let Some(r) = unary(name, svc.replay_moves(request(m)).await) else { return false };
            assert_eq!(r.moves.len(), asked, "{name}: {asked} moves asked, {} answered", r.moves.len());
            check_fens(name, position.as_ref(), &r.fen, r.moves.iter().map(|lm| lm.fen.as_str()));
            true
        }
        10 => {
            let Ok(m) = pb::GetServerInfoRequest::decode(body) else { return false };
            let Some(r) = unary(name, svc.get_server_info(request(m)).await) else { return false };
            assert!(!r.version.is_empty(), "{name}: no version");
            true
        }
        11 => {
            let Ok(m) = pb::ReadPgnRequest::decode(body) else { return false };
            let Some(r) = unary(name, svc.read_pgn(request(m)).await) else { return false };
            for g in &r.games {
                assert_eq!(g.moves.len(), g.position.as_ref().map_or(0, |p| p.moves.len()), "{name}: {g:?}");
                check_fen(
                    name,
                    g.position.as_ref(),
                    g.moves.last().map_or(&fen_of_start(g.position.as_ref()), |m| &m.fen),
                );
            }
            true
        }
        12 => {
            let Ok(m) = pb::WritePgnRequest::decode(body) else { return false };
            let asked = m.position.as_ref().map_or(0, |p| p.moves.len());
            let Some(r) = unary(name, svc.write_pgn(request(m)).await) else { return false };
            let read = unary(
                "ReadPgn (of WritePgn's output)",
                svc.read_pgn(request(pb::ReadPgnRequest { pgn: r.pgn.clone() })).await,
            );
            let Some(read) = read else { panic!("{name} wrote PGN that ReadPgn refuses:\n{}", r.pgn) };
            assert_eq!(read.games.len(), 1, "{name}: {}", r.pgn);
            assert_eq!(read.games[0].moves.len(), asked, "{name}: {}", r.pgn);
            true
        }
        13 => {
            let Ok(m) = pb::AnnotateGameRequest::decode(body) else { return false };
            let Some(stream) = unary(name, svc.annotate_game(request(m)).await) else { return false };
            let events = drain(name, stream).await;
            use pb::annotate_game_response::Event;
            if let Some(Event::Summary(_)) = events.last().and_then(|e| e.event.as_ref()) {
                let Some(Event::Started(s)) = events.first().and_then(|e| e.event.as_ref()) else {
                    panic!("{name}: a summary without a start")
                };
                let moves = events.iter().filter(|e| matches!(e.event, Some(Event::Move(_)))).count();
                assert_eq!(moves + 1, s.positions as usize, "{name}: {moves} verdicts for {} positions", s.positions);
            }
            true
        }
        _ => {
            let Ok(m) = pb::AnalyzeRequest::decode(body) else { return false };
            if rpc == 5 {
                let Some(stream) = unary(name, svc.analyze(request(m)).await) else { return false };
                drain(name, stream).await;
            } else {
                unary(name, svc.best_move(request(pb::BestMoveRequest::from(m))).await);
            }
            true
        }
    }
}

/// Variant names: every compiled game, some defined as data, and near-misses.
fn variant_names() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let compiled = menagerie_variants::VariantId::EVERY.iter().map(|v| v.name());
        compiled.chain(["", "makruk", "shako", "seirawan", "CHESS", " chess", "shogi", "alpaca3"]).collect()
    })
}

fn position(variant: &str, fen: &str, moves: &[&str]) -> Option<pb::Position> {
    Some(pb::Position {
        variant: variant.into(),
        fen: fen.into(),
        moves: moves.iter().map(|m| m.to_string()).collect(),
    })
}

/// Encodes a request for the selector `rpc`.
pub fn encode(rpc: u8, msg: &impl Message) -> Vec<u8> {
    let mut out = vec![rpc];
    out.extend(msg.encode_to_vec());
    out
}

/// Seeds: a few requests of every RPC in every variant.
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![("list-variants".to_string(), encode(0, &pb::ListVariantsRequest {}))];
    let games: &[(&str, &str, &[&str], &str)] = &[
        ("chess", "", &["e4", "e5"], "Nf3"),
        ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", &[], "e1g1"),
        ("alpaca", "", &["accept", "A@g", "A@b"], "Nf3"),
        ("alpaca2", "", &["accept"], "A@bg"),
        ("alpaca-samefile", "", &["decline"], "accept"),
        ("alseid", "", &["accept", "S@d", "S@d", "e4"], "e5"),
        ("alseid-weak", "4k3/8/8/3n4/8/3S4/8/4K3 w - - 0 1", &[], "d3d4"),
        ("camel-rhino", "", &["e3e4"], "h9g7t"),
        ("camel-rhino-plain", "", &[], "b2c4"),
        ("chess", "7k/8/8/8/8/8/8/K6R w - - 0 1", &["Rh2"], "Kg8"),
        ("chess", "k7/8/1Q6/8/8/8/8/K7 b - - 0 1", &[], "Ka7"),
    ];
    for (i, (v, f, moves, mv)) in games.iter().enumerate() {
        let p = position(v, f, moves);
        out.push((
            format!("validate-{i:02}-{v}"),
            encode(1, &pb::ValidateMoveRequest { position: p.clone(), r#move: mv.to_string() }),
        ));
        out.push((format!("legal-{i:02}-{v}"), encode(2, &pb::LegalMovesRequest { position: p.clone() })));
        out.push((
            format!("perft-{i:02}-{v}"),
            encode(3, &pb::PerftRequest { position: p.clone(), depth: 1 + (i as u32 % 3), threads: 0, hash_mb: 0 }),
        ));
        out.push((
            format!("analyze-{i:02}-{v}"),
            encode(5, &pb::AnalyzeRequest { position: p.clone(), depth: 3, multipv: 2, ..Default::default() }),
        ));
        out.push((
            format!("bestmove-{i:02}-{v}"),
            encode(6, &pb::AnalyzeRequest { position: p.clone(), nodes: 2000, ..Default::default() }),
        ));
        out.push((
            format!("render-{i:02}-{v}"),
            encode(
                7,
                &pb::RenderBoardRequest {
                    position: p.clone(),
                    arrows: vec!["e2e4".into(), "b1c3:red".into()],
                    highlights: vec!["d4:#ff0".into()],
                    flip: i % 2 == 1,
                    size: 64,
                    no_coordinates: i % 3 == 0,
                },
            ),
        ));
        out.push((
            format!("validate-fen-{i:02}-{v}"),
            encode(8, &pb::ValidateFenRequest { variant: v.to_string(), fen: f.to_string() }),
        ));
        out.push((format!("replay-{i:02}-{v}"), encode(9, &pb::ReplayMovesRequest { position: p })));
    }
    out.push(("server-info".into(), encode(10, &pb::GetServerInfoRequest {})));
    for (i, text) in PGN_SEEDS.iter().enumerate() {
        out.push((format!("read-pgn-{i}"), encode(11, &pb::ReadPgnRequest { pgn: text.to_string() })));
        out.push((
            format!("annotate-{i}"),
            encode(
                13,
                &pb::AnnotateGameRequest { pgn: text.to_string(), nodes: 500, threads: 2, ..Default::default() },
            ),
        ));
    }
    out.push((
        "write-pgn".into(),
        encode(
            12,
            &pb::WritePgnRequest {
                position: position("alpaca", "", &["accept", "A@g", "A@b"]),
                tags: vec![pb::PgnTag { name: "White".into(), value: "A".into() }],
                result: String::new(),
            },
        ),
    ));
    out.push((
        "perft-hash-threads".into(),
        encode(3, &pb::PerftRequest { position: position("camel-rhino", "", &[]), depth: 3, threads: 2, hash_mb: 1 }),
    ));
    let mut batch = vec![4u8];
    for (i, line) in
        crate::targets::epd::seeds().into_iter().filter(|(n, _)| n.starts_with("line-")).take(6).enumerate()
    {
        let job = pb::PerftBatchRequest {
            id: format!("job{i}"),
            epd: String::from_utf8_lossy(&line.1).into_owned(),
            default_variant: "chess".into(),
            max_depth: 2,
            ..Default::default()
        };
        batch.extend(job.encode_length_delimited_to_vec());
    }
    let job = pb::PerftBatchRequest {
        id: "pos".into(),
        position: position("alpaca", "", &["accept"]),
        expected: vec![pb::DepthCount { depth: 1, nodes: 0 }, pb::DepthCount { depth: 2, nodes: 5 }],
        threads: 1,
        ..Default::default()
    };
    batch.extend(job.encode_length_delimited_to_vec());
    out.push(("perft-batch".into(), batch));
    out
}

/// The request a selector names, decoded (or default when it does not decode).
enum Req {
    List(pb::ListVariantsRequest),
    Validate(pb::ValidateMoveRequest),
    Legal(pb::LegalMovesRequest),
    Perft(pb::PerftRequest),
    Batch(Vec<pb::PerftBatchRequest>),
    Analyze(u8, pb::AnalyzeRequest),
    Render(pb::RenderBoardRequest),
    Fen(pb::ValidateFenRequest),
    Replay(pb::ReplayMovesRequest),
    Info(pb::GetServerInfoRequest),
    ReadPgn(pb::ReadPgnRequest),
    WritePgn(pb::WritePgnRequest),
    Annotate(pb::AnnotateGameRequest),
}

impl Req {
    fn decode(selector: u8, body: &[u8]) -> Req {
        match usize::from(selector) % RPCS.len() {
            0 => Req::List(pb::ListVariantsRequest::decode(body).unwrap_or_default()),
            1 => Req::Validate(pb::ValidateMoveRequest::decode(body).unwrap_or_default()),
            2 => Req::Legal(pb::LegalMovesRequest::decode(body).unwrap_or_default()),
            3 => Req::Perft(pb::PerftRequest::decode(body).unwrap_or_default()),
            4 => {
                let mut jobs = Vec::new();
                let mut rest = body;
                while !rest.is_empty() {
                    match pb::PerftBatchRequest::decode_length_delimited(&mut rest) {
                        Ok(j) => jobs.push(j),
                        Err(_) => break,
                    }
                }
                Req::Batch(jobs)
            }
            7 => Req::Render(pb::RenderBoardRequest::decode(body).unwrap_or_default()),
            8 => Req::Fen(pb::ValidateFenRequest::decode(body).unwrap_or_default()),
            9 => Req::Replay(pb::ReplayMovesRequest::decode(body).unwrap_or_default()),
            10 => Req::Info(pb::GetServerInfoRequest::decode(body).unwrap_or_default()),
            11 => Req::ReadPgn(pb::ReadPgnRequest::decode(body).unwrap_or_default()),
            12 => Req::WritePgn(pb::WritePgnRequest::decode(body).unwrap_or_default()),
            13 => Req::Annotate(pb::AnnotateGameRequest::decode(body).unwrap_or_default()),
            _ => Req::Analyze(selector, pb::AnalyzeRequest::decode(body).unwrap_or_default()),
        }
    }

    fn encode(&self) -> Vec<u8> {
        match self {
            Req::List(m) => encode(0, m),
            Req::Validate(m) => encode(1, m),
            Req::Legal(m) => encode(2, m),
            Req::Perft(m) => encode(3, m),
            Req::Batch(jobs) => {
                let mut out = vec![4];
                for j in jobs {
                    out.extend(j.encode_length_delimited_to_vec());
                }
                out
            }
            Req::Analyze(s, m) => encode(*s, m),
            Req::Render(m) => encode(7, m),
            Req::Fen(m) => encode(8, m),
            Req::Replay(m) => encode(9, m),
            Req::Info(m) => encode(10, m),
            Req::ReadPgn(m) => encode(11, m),
            Req::WritePgn(m) => encode(12, m),
            Req::Annotate(m) => encode(13, m),
        }
    }
}

fn mutate_text(s: &mut String, rng: &mut Rng, m: &Mutator, others: &[Vec<u8>]) {
    let mut b = std::mem::take(s).into_bytes();
    m.mutate(&mut b, rng, others);
    b.truncate(512);
    *s = String::from_utf8_lossy(&b).into_owned();
}

/// FENs to draw from: every variant's start and the perft suites' positions.
fn fens() -> &'static [Vec<u8>] {
    static FENS: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    FENS.get_or_init(|| {
        let starts = VariantId::EVERY.iter().map(|v| v.start_fen().to_string());
        let suites = crate::targets::epd::suite_positions().into_iter().map(|(_, f)| f);
        starts.chain(suites).map(String::into_bytes).collect()
    })
}

fn mutate_position(p: &mut Option<pb::Position>, rng: &mut Rng, m: &Mutator) {
    let fens = fens();
    let p = p.get_or_insert_with(Default::default);
    match rng.below(8) {
        0 => p.variant = rng.pick(variant_names()).map_or("", |s| *s).into(),
        1 => mutate_text(&mut p.variant, rng, m, &[]),
        2 => {
            if let Some(f) = rng.pick(fens) {
                p.fen = String::from_utf8_lossy(f).into_owned();
            }
        }
        3 => mutate_text(&mut p.fen, rng, m, fens),
        4 => p.fen.clear(),
        5 if !p.moves.is_empty() => {
            let i = rng.below(p.moves.len());
            if rng.one_in(3) {
                p.moves.remove(i);
            } else {
                mutate_text(&mut p.moves[i], rng, m, &[]);
            }
        }
        _ => {
            let t = String::from_utf8_lossy(m.dictionary.get(rng.below(m.dictionary.len())).map_or(&[][..], |v| v));
            let i = rng.below(p.moves.len() + 1);
            p.moves.insert(i, t.trim().to_string());
        }
    }
}

/// Tag names, including the derived ones WritePgn refuses.
const TAG_NAMES: &[&str] = &["Event", "White", "FEN", "SetUp", "Variant", "Result", "Annotator", "", "bad name", "X_1"];

/// PGN texts to splice from: the seeds' games.
fn pgns() -> &'static [Vec<u8>] {
    static P: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    P.get_or_init(|| PGN_SEEDS.iter().map(|s| s.as_bytes().to_vec()).collect())
}

/// Games in PGN for the seeds and splicing: every variant, comments, NAGs,
/// variations, a FEN start, an unfinished game.
const PGN_SEEDS: &[&str] = &[
    "[Event \"x\"]\n\n1. e4 e5 2. Nf3 {c} Nc6 $1 (2... d6 3. d4) 3. Bb5 a6 1-0\n",
    "[Variant \"alpaca\"]\n\n1. accept A@g 2. A@b Nf3(A@g1) *\n",
    "[Variant \"alseid\"]\n\n1. accept S@d 2. S@d e4 *\n",
    "[Variant \"camel-rhino\"]\n\n1. e4 e7 *\n",
    "[SetUp \"1\"]\n[FEN \"7k/8/8/8/8/8/8/K6R w - - 0 1\"]\n\n1. Rh2+ Kg8 *\n",
    "1. f3 e5 2. g4 Qh4# 0-1\n",
];

/// An arrow-like token: two squares of a 10x10 board, sometimes with a colour.
fn square_pair(rng: &mut Rng) -> String {
    let sq = |rng: &mut Rng| format!("{}{}", (b'a' + rng.below(11) as u8) as char, rng.below(12));
    let colour = ["", ":red", ":#0f0", ":#12345g", ":", ":blue:green"];
    format!("{}{}{}", sq(rng), sq(rng), rng.pick(&colour).map_or("", |s| *s))
}

fn number(rng: &mut Rng) -> u64 {
    match rng.below(4) {
        0 => rng.below(5) as u64,
        1 => rng.below(100) as u64,
        2 => *rng.pick(&[u64::from(u32::MAX), u64::MAX, 1 << 31, 1 << 32, 65, 257]).unwrap_or(&0),
        _ => rng.next_u64() >> rng.below(64),
    }
}

/// Structure-aware mutation: decode the request, change one field (the RPC,
/// the position's variant, FEN or moves, a number, a batch job), encode.
pub fn mutate(data: &mut Vec<u8>, rng: &mut Rng, m: &Mutator, _others: &[Vec<u8>]) {
    let Some((&selector, body)) = data.split_first() else {
        *data = vec![rng.below(RPCS.len()) as u8];
        return;
    };
    let mut req = Req::decode(selector, body);
    let n32 = |rng: &mut Rng| number(rng) as u32;
    if rng.one_in(12) {
        // Same body, another RPC: fields overlap (position is field 1 nearly everywhere).
        let mut out = vec![rng.below(RPCS.len()) as u8];
        out.extend_from_slice(body);
        *data = out;
        return;
    }
    match &mut req {
        Req::List(_) => {}
        Req::Validate(r) => {
            if rng.one_in(2) {
                mutate_position(&mut r.position, rng, m)
            } else {
                mutate_text(&mut r.r#move, rng, m, &[])
            }
        }
        Req::Legal(r) => mutate_position(&mut r.position, rng, m),
        Req::Perft(r) => match rng.below(5) {
            0 => r.depth = n32(rng),
            1 => r.threads = n32(rng),
            2 => r.hash_mb = n32(rng),
            _ => mutate_position(&mut r.position, rng, m),
        },
        Req::Batch(jobs) => {
            if jobs.is_empty() || rng.one_in(6) {
                jobs.push(pb::PerftBatchRequest { id: format!("j{}", rng.below(100)), ..Default::default() });
            }
            let i = rng.below(jobs.len());
            match rng.below(9) {
                0 => mutate_text(&mut jobs[i].epd, rng, m, fens()),
                1 => jobs[i].default_variant = rng.pick(variant_names()).map_or("", |s| *s).into(),
                2 => jobs[i].max_depth = n32(rng),
                3 => jobs[i].threads = n32(rng),
                4 => jobs[i].expected.push(pb::DepthCount { depth: n32(rng), nodes: number(rng) }),
                5 => drop(jobs.remove(i)),
                6 => mutate_text(&mut jobs[i].id, rng, m, &[]),
                _ => mutate_position(&mut jobs[i].position, rng, m),
            }
        }
        Req::Analyze(_, r) => match rng.below(8) {
            0 => r.depth = n32(rng),
            1 => r.nodes = number(rng),
            2 => r.movetime_ms = n32(rng),
            3 => r.multipv = n32(rng),
            4 => r.threads = n32(rng),
            _ => mutate_position(&mut r.position, rng, m),
        },
        Req::Render(r) => match rng.below(7) {
            0 => r.size = n32(rng),
            1 => r.flip = !r.flip,
            2 => r.no_coordinates = !r.no_coordinates,
            3 => r.arrows.push(square_pair(rng)),
            4 => r.highlights.push(square_pair(rng).chars().take(2 + rng.below(6)).collect()),
            5 => {
                let list = if rng.one_in(2) { &mut r.arrows } else { &mut r.highlights };
                if let Some(t) = list.last_mut() {
                    mutate_text(t, rng, m, &[])
                }
            }
            _ => mutate_position(&mut r.position, rng, m),
        },
        Req::Fen(r) => match rng.below(3) {
            0 => r.variant = rng.pick(variant_names()).map_or("", |s| *s).into(),
            _ => mutate_text(&mut r.fen, rng, m, fens()),
        },
        Req::Replay(r) => mutate_position(&mut r.position, rng, m),
        Req::Info(_) => {}
        Req::ReadPgn(r) => mutate_text(&mut r.pgn, rng, m, pgns()),
        Req::WritePgn(r) => match rng.below(4) {
            0 => r.tags.push(pb::PgnTag { name: rng.pick(TAG_NAMES).map_or("", |s| *s).into(), value: "v".into() }),
            1 => {
                if let Some(t) = r.tags.last_mut() {
                    mutate_text(&mut t.value, rng, m, &[])
                }
            }
            2 => r.result = rng.pick(&["", "1-0", "0-1", "1/2-1/2", "*", "2-0", "1-0 "]).map_or("", |s| *s).into(),
            _ => mutate_position(&mut r.position, rng, m),
        },
        Req::Annotate(r) => match rng.below(9) {
            0 => r.depth = n32(rng) % 8,
            1 => r.nodes = number(rng),
            2 => r.movetime_ms = n32(rng),
            3 => r.threads = n32(rng),
            4 => r.pictures = n32(rng) as i32 % 4,
            5 => r.thresholds = n32(rng) as i32 % 3,
            6 | 7 => mutate_text(&mut r.pgn, rng, m, pgns()),
            _ => mutate_position(&mut r.position, rng, m),
        },
    }
    *data = req.encode();
}
