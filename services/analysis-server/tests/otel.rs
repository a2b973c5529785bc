#![allow(clippy::unwrap_used)]
//! OpenTelemetry export end to end (cargo feature `otel`): the real
//! `menagerie-server` binary exports to a real OTLP/gRPC collector endpoint
//! (a tonic `TraceService` in this test), a caller's W3C `traceparent`
//! makes the request span part of the caller's trace, the search spans nest
//! under the request span, and SIGTERM flushes what is buffered.

mod common;

use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{TraceService, TraceServiceServer};
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use tonic::{Request, Response, Status};

/// Everything the collector received.
#[derive(Clone, Default)]
struct Collector {
    received: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
}

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        self.received.lock().unwrap().push(request.into_inner());
        Ok(Response::new(ExportTraceServiceResponse { partial_success: None }))
    }
}

/// (service.name, span) for every span received.
fn spans(collector: &Collector) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    for req in collector.received.lock().unwrap().iter() {
        for rs in &req.resource_spans {
            let service = rs
                .resource
                .iter()
                .flat_map(|r| &r.attributes)
                .find(|kv| kv.key == "service.name")
                .and_then(|kv| kv.value.as_ref()?.value.as_ref())
                .map(|v| match v {
                    Value::StringValue(s) => s.clone(),
                    other => format!("{other:?}"),
                })
                .unwrap_or_default();
            for ss in &rs.scope_spans {
                out.extend(ss.spans.iter().map(|s| (service.clone(), s.clone())));
            }
        }
    }
    out
}

fn attribute(span: &Span, key: &str) -> Option<String> {
    span.attributes.iter().find(|kv| kv.key == key).and_then(|kv| match kv.value.as_ref()?.value.as_ref()? {
        Value::StringValue(s) => Some(s.clone()),
        Value::IntValue(i) => Some(i.to_string()),
        other => Some(format!("{other:?}")),
    })
}

/// Starts the server binary exporting to `otlp`; returns it and its address.
fn start_server(otlp: &str) -> (Child, String) {
    let (child, addr, lines) = common::launch(&["--otlp-endpoint", otlp, "--log", "info"]);
    // Keep draining the log so that the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, addr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_reach_an_otlp_collector_inside_the_callers_trace() {
    let collector = Collector::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let otlp = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(collector.clone()))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );

    let (mut server, addr) = start_server(&otlp);
    let mut client = AnalysisServiceClient::connect(format!("http://{addr}")).await.unwrap();

    // A caller's trace: 0af7651916cd43dd8448eb211c80319c, its span b7ad6b7169203331.
    const TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
    const PARENT: &str = "b7ad6b7169203331";
    let mut validate = Request::new(pb::ValidateMoveRequest {
        position: Some(pb::Position { variant: "chess".into(), fen: String::new(), moves: vec![] }),
        r#move: "e2e4".into(),
    });
    validate.metadata_mut().insert("traceparent", format!("00-{TRACE}-{PARENT}-01").parse().unwrap());
    assert!(client.validate_move(validate).await.unwrap().into_inner().legal);

    let best = client
        .best_move(pb::BestMoveRequest::from(pb::AnalyzeRequest {
            position: Some(pb::Position { variant: "alseid".into(), fen: String::new(), moves: vec![] }),
            depth: 3,
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(!best.best_move.is_empty());
    // The server closes a request's span just after the reply's last bytes
    // go out: on a loaded machine that can come after the client has the
    // reply, so hang up and give it a moment before asking it to stop.
    drop(client);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;

    // SIGTERM: the server drains, then flushes its span buffer before exiting.
    let status = Command::new("kill").args(["-TERM", &server.id().to_string()]).status().unwrap();
    assert!(status.success());
    let exit = tokio::task::spawn_blocking(move || server.wait()).await.unwrap().unwrap();
    assert!(exit.success(), "server exit: {exit:?}");

    let spans = spans(&collector);
    assert!(!spans.is_empty(), "the collector received no spans");
    assert!(spans.iter().all(|(service, _)| service == "menagerie-server"));
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();

    // The ValidateMove request span continues the caller's trace.
    let (_, request) = spans
        .iter()
        .find(|(_, s)| s.name == "request" && attribute(s, "method").is_some_and(|m| m.ends_with("/ValidateMove")))
        .expect("a request span for ValidateMove");
    assert_eq!(hex(&request.trace_id), TRACE);
    assert_eq!(hex(&request.parent_span_id), PARENT);

    // The BestMove request starts its own trace, with the job, search and
    // iteration spans nested under it.
    let (_, best_request) = spans
        .iter()
        .find(|(_, s)| s.name == "request" && attribute(s, "method").is_some_and(|m| m.ends_with("/BestMove")))
        .expect("a request span for BestMove");
    assert_ne!(hex(&best_request.trace_id), TRACE);
    let in_trace: Vec<&Span> = spans.iter().map(|(_, s)| s).filter(|s| s.trace_id == best_request.trace_id).collect();
    let job = in_trace.iter().find(|s| s.name == "best_move").expect("a best_move job span");
    assert_eq!(job.parent_span_id, best_request.span_id);
    assert_eq!(attribute(job, "variant").as_deref(), Some("alseid"));
    let search = in_trace.iter().find(|s| s.name == "search").expect("a search span");
    assert_eq!(search.parent_span_id, job.span_id);
    let iterations: Vec<&&Span> = in_trace.iter().filter(|s| s.name == "iteration").collect();
    assert!(iterations.len() >= 3, "one span per iteration, got {}", iterations.len());
    assert!(iterations.iter().all(|s| s.parent_span_id == search.span_id));
    assert!(iterations.iter().any(|s| attribute(s, "depth").as_deref() == Some("3")));
}

#[test]
fn a_bad_endpoint_is_a_clear_startup_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_menagerie-server"))
        .args(["--listen", "127.0.0.1:0", "--otlp-endpoint", "not a url"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot set up OTLP export to not a url"), "{stderr}");
}
