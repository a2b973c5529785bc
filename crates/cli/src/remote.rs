//! Commands run on `menagerie-server` replicas over gRPC.

use crate::report::{self, AnalysisScore, InfoLine};
use crate::ui::{self, Progress};
use crate::{Command, PositionArgs, fanout};
use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use hyper_util::rt::TokioIo;
use menagerie_api::pb::{self, analysis_service_client::AnalysisServiceClient};
use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tonic::metadata::{AsciiMetadataValue, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

/// Runs a command remotely.
///
/// SIGINT or SIGTERM ends the run at once, whatever the signal dispositions
/// inherited from the parent: the calls in flight are cancelled (their
/// servers stop the work), finished jobs are already in the results file, and
/// the exit code is 130 (SIGINT) or 143 (SIGTERM).
pub fn run(remote: &Remote, command: Command) -> Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async {
        let interrupted = interrupted()?;
        tokio::select! {
            r = run_async(remote, command) => r,
            (name, code) = interrupted => {
                eprintln!("menagerie: interrupted by {name}; jobs finished so far are in the results file (if any): rerun with the same --results to resume");
                Ok(ExitCode::from(code))
            }
        }
    })
}

/// A future resolving to the signal's name and the exit code to use; the
/// handlers are installed now.
#[cfg(unix)]
fn interrupted() -> Result<impl std::future::Future<Output = (&'static str, u8)>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => ("SIGINT", 130),
            _ = term.recv() => ("SIGTERM", 143),
        }
    })
}

/// A future resolving on Ctrl-C.
#[cfg(not(unix))]
fn interrupted() -> Result<impl std::future::Future<Output = (&'static str, u8)>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
        ("Ctrl-C", 130)
    })
}

/// The help heading of the flags that only matter with `--remote` (shown
/// apart, so a command that runs locally does not seem to take them).
pub(crate) const HEADING: &str = "Server options (with --remote)";

/// How to reach the servers: TLS and credentials (flags shared by every command).
#[derive(Args, Clone, Debug, Default)]
#[command(next_help_heading = HEADING)]
pub(crate) struct ConnectArgs {
    /// PEM CA certificate(s) to verify https:// servers with (default: the
    /// system's roots). Makes scheme-less --remote URLs https://.
    #[arg(long, global = true, env = "MENAGERIE_CA")]
    ca: Option<PathBuf>,
    /// Bearer token sent with every call (`authorization: Bearer TOKEN`).
    #[arg(long, global = true, env = "MENAGERIE_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// File holding the bearer token (its first line).
    #[arg(long, global = true, env = "MENAGERIE_TOKEN_FILE", conflicts_with = "token")]
    token_file: Option<PathBuf>,
    /// PEM client certificate for mutual TLS (with --client-key).
    #[arg(long, global = true, env = "MENAGERIE_CLIENT_CERT", requires = "client_key")]
    client_cert: Option<PathBuf>,
    /// PEM private key of --client-cert.
    #[arg(long, global = true, env = "MENAGERIE_CLIENT_KEY", requires = "client_cert")]
    client_key: Option<PathBuf>,
    /// Name the server certificates must carry (default: each URL's host,
    /// also when a host name resolves to several replicas).
    #[arg(long, global = true, env = "MENAGERIE_TLS_SERVER_NAME")]
    tls_server_name: Option<String>,
}

fn read(what: &str, path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {what} {}", path.display()))
}

/// The servers to run on and how to reach them.
#[derive(Clone, Debug)]
pub(crate) struct Remote {
    urls: Vec<String>,
    /// TLS for https:// URLs, before the server name is set.
    tls: ClientTlsConfig,
    /// Whether TLS was asked for by --ca or a client certificate.
    tls_asked: bool,
    /// Whether a client certificate is given (--client-cert).
    identity: bool,
    server_name: Option<String>,
    auth: Auth,
}

impl Remote {
    /// The replicas at `urls`, reached as `args` say (files are read now).
    pub(crate) fn new(urls: Vec<String>, args: &ConnectArgs) -> Result<Remote> {
        let mut tls = ClientTlsConfig::new();
        tls = match &args.ca {
            Some(ca) => tls.ca_certificate(Certificate::from_pem(read("--ca", ca)?)),
            None => tls.with_native_roots(),
        };
        if let (Some(cert), Some(key)) = (&args.client_cert, &args.client_key) {
            tls = tls.identity(Identity::from_pem(read("--client-cert", cert)?, read("--client-key", key)?));
        }
        let token = match (&args.token, &args.token_file) {
            (Some(t), _) => Some(t.trim().to_string()),
            (None, Some(file)) => {
                let text = String::from_utf8(read("--token-file", file)?)
                    .map_err(|_| anyhow!("--token-file {} is not UTF-8 text", file.display()))?;
                Some(text.lines().next().unwrap_or("").trim().to_string())
            }
            (None, None) => None,
        };
        let header = match token {
            Some(t) if t.is_empty() => bail!("the bearer token is empty"),
            Some(t) => Some(
                MetadataValue::try_from(format!("Bearer {t}"))
                    .map_err(|_| anyhow!("the bearer token must be printable ASCII"))?,
            ),
            None => None,
        };
        Ok(Remote {
            urls,
            tls,
            tls_asked: args.ca.is_some() || args.client_cert.is_some(),
            identity: args.client_cert.is_some(),
            server_name: args.tls_server_name.clone(),
            auth: Auth(header),
        })
    }

    /// An endpoint for `url`, whose certificate must name `host` (or --tls-server-name).
    fn endpoint(&self, url: &str, host: &str) -> Result<Endpoint> {
        let mut e = Endpoint::from_shared(url.to_string())?
            .connect_timeout(Duration::from_secs(3))
            .tcp_nodelay(true)
            .http2_keep_alive_interval(Duration::from_secs(20))
            .keep_alive_while_idle(true);
        if url.starts_with("https://") {
            let name = self.server_name.clone().unwrap_or_else(|| host.trim_matches(['[', ']']).to_string());
            e = e.tls_config(self.tls.clone().domain_name(name))?;
        } else if self.tls_asked {
            bail!("--ca and --client-cert need an https:// URL, not '{url}'");
        }
        Ok(e)
    }
}

/// Adds the bearer token (if any) to every call.
#[derive(Clone, Debug)]
pub(crate) struct Auth(Option<AsciiMetadataValue>);

impl Interceptor for Auth {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(v) = &self.0 {
            req.metadata_mut().insert("authorization", v.clone());
        }
        Ok(req)
    }
}

/// A client of one replica.
pub(crate) type Client = AnalysisServiceClient<InterceptedService<Channel, Auth>>;

/// A replica: its display name and endpoint.
#[derive(Clone, Debug)]
pub(crate) struct Replica {
    pub name: String,
    pub endpoint: Endpoint,
    auth: Auth,
    /// Over TLS without a client certificate: a closed connection may be a
    /// server that requires one.
    cert_hint: bool,
}

impl Replica {
    /// Connects to the replica (one connection: see [`connect_once`]).
    pub(crate) async fn connect(&self) -> Result<Client, tonic::transport::Error> {
        let channel = connect_once(&self.endpoint, self.cert_hint).await?;
        Ok(AnalysisServiceClient::with_interceptor(channel, self.auth.clone()))
    }

    /// [`Replica::connect`], a failure as a status naming the replica and
    /// the cause (`Connection refused`, ...).
    pub(crate) async fn connect_or_status(&self) -> Result<Client, tonic::Status> {
        self.connect()
            .await
            .map_err(|e| tonic::Status::unavailable(format!("cannot connect to {}: {}", self.name, error_chain(&e))))
    }
}

/// A channel over one TCP connection to `endpoint`, never reopened: once the
/// server closes it, the channel's calls fail with the reason instead of
/// being sent again on a new connection. (Behind the caller's back, a
/// channel would redial for as long as each new connection closes before
/// its request is written: with TLS 1.3 a server that requires a client
/// certificate accepts the handshake and closes right after it, so a client
/// without one could redial for ever.) Callers that retry do so themselves,
/// on a new channel. A call after the connection ended fails with what
/// happened to it ([`Ending`]); `cert_hint` adds that a TLS server requiring
/// a client certificate closes the connection too.
pub(crate) async fn connect_once(endpoint: &Endpoint, cert_hint: bool) -> Result<Channel, tonic::transport::Error> {
    endpoint.connect_with_connector(OneConnection { cert_hint, ..OneConnection::default() }).await
}

/// Opens the TCP connection of [`connect_once`], the first time only.
#[derive(Clone, Debug, Default)]
struct OneConnection {
    used: Arc<AtomicBool>,
    /// How the connection ended, once it has.
    ending: Arc<Mutex<Option<Ending>>>,
    cert_hint: bool,
}

/// How the server ended a connection, as its reads saw it.
#[derive(Clone, Debug)]
enum Ending {
    /// The server closed it (end of stream).
    Closed,
    /// A read failed (`Connection reset by peer`, ...).
    Failed(String),
}

/// The connection's message for a call made after it ended: which endpoint,
/// and what happened.
fn ended(addr: &str, ending: Option<Ending>, cert_hint: bool) -> String {
    let what = match &ending {
        Some(Ending::Closed) => format!("{addr} closed the connection (the server stopped or hung up)"),
        Some(Ending::Failed(e)) => return format!("the connection to {addr} failed: {e}"),
        None => format!("the connection to {addr} was closed"),
    };
    if cert_hint {
        format!(
            "{what}; a server that requires a client certificate closes it right after the TLS handshake: \
             --client-cert, --client-key"
        )
    } else {
        what
    }
}

/// A TCP stream that records how the server ended it ([`Ending`]).
struct Watched {
    stream: TcpStream,
    ending: Arc<Mutex<Option<Ending>>>,
}

impl Watched {
    fn record(&self, ending: Ending) {
        if let Ok(mut e) = self.ending.lock() {
            e.get_or_insert(ending);
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(self: Pin<&mut Self>, cx: &mut TaskContext<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let room = buf.remaining() > 0;
        let poll = Pin::new(&mut this.stream).poll_read(cx, buf);
        match &poll {
            Poll::Ready(Ok(())) if room && buf.filled().len() == before => this.record(Ending::Closed),
            Poll::Ready(Err(e)) => this.record(Ending::Failed(e.to_string())),
            _ => {}
        }
        poll
    }
}

impl AsyncWrite for Watched {
    fn poll_write(self: Pin<&mut Self>, cx: &mut TaskContext<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write(cx, data);
        if let Poll::Ready(Err(e)) = &poll {
            this.record(Ending::Failed(e.to_string()));
        }
        poll
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Err(e)) = &poll {
            this.record(Ending::Failed(e.to_string()));
        }
        poll
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

impl tower_service::Service<tonic::transport::Uri> for OneConnection {
    type Response = TokioIo<Watched>;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = std::io::Result<TokioIo<Watched>>> + Send>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: tonic::transport::Uri) -> Self::Future {
        let first = !self.used.swap(true, Ordering::SeqCst);
        let (ending, cert_hint) = (self.ending.clone(), self.cert_hint);
        Box::pin(async move {
            let host = uri.host().unwrap_or_default().trim_matches(['[', ']']).to_string();
            let port = uri.port_u16().unwrap_or(if uri.scheme_str() == Some("https") { 443 } else { 80 });
            if !first {
                let addr = if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") };
                let how = ending.lock().ok().and_then(|e| e.clone());
                return Err(std::io::Error::new(std::io::ErrorKind::ConnectionAborted, ended(&addr, how, cert_hint)));
            }
            let stream = TcpStream::connect((host.as_str(), port)).await?;
            stream.set_nodelay(true)?;
            // An HTTP/2 server speaks first (SETTINGS): a server that never
            // accepts the connection (out of file descriptors, its backlog
            // full) then fails within the endpoint's connect timeout
            // instead of hanging the call. (Over TLS the handshake does this.)
            if uri.scheme_str() != Some("https") {
                stream.readable().await?;
            }
            Ok(TokioIo::new(Watched { stream, ending }))
        })
    }
}

/// The replicas named by the URLs: one per URL, or one per address when a
/// host name resolves to several addresses of one family (a headless
/// Kubernetes Service). Over TLS each address is still verified against
/// the host name.
pub(crate) async fn replicas(remote: &Remote) -> Result<Vec<Replica>> {
    let mut out = Vec::new();
    let default_scheme = if remote.tls_asked { "https" } else { "http" };
    for url in remote.urls.iter().map(|u| u.trim()).filter(|u| !u.is_empty()) {
        let url = if url.contains("://") { url.to_string() } else { format!("{default_scheme}://{url}") };
        let uri: tonic::transport::Uri = url.parse().with_context(|| format!("bad --remote URL '{url}'"))?;
        let host = uri.host().ok_or_else(|| anyhow!("--remote URL '{url}' has no host"))?.to_string();
        let port = uri.port_u16().unwrap_or(50051);
        let scheme = uri.scheme_str().unwrap_or("http").to_string();
        let mut addrs: Vec<std::net::SocketAddr> = match tokio::net::lookup_host((host.as_str(), port)).await {
            Ok(a) => a.collect(),
            Err(_) => Vec::new(),
        };
        let v4: Vec<_> = addrs.iter().copied().filter(|a| a.is_ipv4()).collect();
        if !v4.is_empty() {
            addrs = v4;
        }
        addrs.sort();
        addrs.dedup();
        let parsed_ip = host.trim_matches(['[', ']']).parse::<std::net::IpAddr>().is_ok();
        let auth = remote.auth.clone();
        let cert_hint = scheme == "https" && !remote.identity;
        if addrs.len() > 1 && !parsed_ip {
            for a in addrs {
                let u = format!("{scheme}://{a}");
                out.push(Replica {
                    name: u.clone(),
                    endpoint: remote.endpoint(&u, &host)?,
                    auth: auth.clone(),
                    cert_hint,
                });
            }
        } else {
            out.push(Replica { name: url.clone(), endpoint: remote.endpoint(&url, &host)?, auth, cert_hint });
        }
    }
    if out.is_empty() {
        bail!("--remote needs at least one URL");
    }
    Ok(out)
}

/// A client of one of the replicas (for single requests): the replicas are
/// tried from a varying start, so that successive commands spread over them,
/// and the first that accepts a connection serves the command (over one
/// connection: see [`connect_once`]).
async fn client(remote: &Remote) -> Result<Client> {
    let reps = replicas(remote).await?;
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() as usize ^ std::process::id() as usize)
        % reps.len();
    let mut failures = Vec::new();
    for rep in reps.iter().cycle().skip(start).take(reps.len()) {
        match connect_once(&rep.endpoint, rep.cert_hint).await {
            Ok(channel) => {
                return Ok(AnalysisServiceClient::with_interceptor(channel, rep.auth.clone())
                    .max_decoding_message_size(64 << 20));
            }
            Err(e) => failures.push(format!("{}: {}", rep.name, error_chain(&e))),
        }
    }
    if let [only] = failures.as_slice() {
        bail!("cannot reach {only}");
    }
    bail!("cannot reach any replica ({})", failures.join("; "))
}

/// An error and its causes, joined by ": ".
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}

/// A gRPC status as a one-line error naming the offending field.
pub(crate) fn status_error(s: tonic::Status) -> anyhow::Error {
    anyhow!("server: {}", status_text(&s))
}

/// A gRPC status in one line: `Code: message`, and for a failure of the
/// connection rather than of the call its first cause (`Connection reset
/// by peer`, the ending [`connect_once`] saw).
pub(crate) fn status_text(s: &tonic::Status) -> String {
    let mut msg = format!("{:?}: {}", s.code(), s.message());
    let mut root = std::error::Error::source(s);
    while let Some(deeper) = root.and_then(|c| c.source()) {
        root = Some(deeper);
    }
    if let Some(text) = root.map(|c| c.to_string()).filter(|t| !msg.contains(t.as_str())) {
        msg.push_str(": ");
        msg.push_str(&text);
    }
    if s.code() == tonic::Code::Unavailable && s.message().is_empty() {
        msg.push_str("server unavailable");
    }
    msg
}

pub(crate) fn position_pb(p: &PositionArgs) -> pb::Position {
    pb::Position { variant: p.variant.clone(), fen: p.fen.clone().unwrap_or_default(), moves: p.move_list() }
}

fn score(s: &Option<pb::Score>) -> AnalysisScore {
    match s.as_ref().and_then(|s| s.value) {
        Some(pb::score::Value::Cp(c)) => AnalysisScore::Cp(c),
        Some(pb::score::Value::Mate(m)) => AnalysisScore::Mate(m),
        None => AnalysisScore::Cp(0),
    }
}

async fn run_async(remote: &Remote, command: Command) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let json = ui::json();
    match command {
        Command::Perft { pos, threads, split_depth: Some(k), fanout: f, depth, .. } => {
            let t0 = std::time::Instant::now();
            let total = fanout::perft_split(remote, &pos, depth, k, threads, &f).await?;
            if json {
                let secs = t0.elapsed().as_secs_f64();
                ui::emit(&mut out, &report::perft_json(depth, total, secs, menagerie_app::nps(total, secs)))?;
            } else {
                writeln!(out, "{total}")?;
            }
        }
        Command::Perft { pos, threads, hash, depth, .. } => {
            let mut c = client(remote).await?;
            let req = pb::PerftRequest {
                position: Some(position_pb(&pos)),
                depth,
                threads: threads as u32,
                hash_mb: hash as u32,
            };
            let mut stream = c.perft(req).await.map_err(status_error)?.into_inner();
            let progress = Progress::units(0, "root moves");
            while let Some(ev) = stream.message().await.map_err(status_error)? {
                match ev.event {
                    Some(pb::perft_response::Event::Progress(p)) => {
                        progress.set(p.moves_done.into(), p.moves_total.into());
                        progress.set_nodes(p.nodes);
                    }
                    Some(pb::perft_response::Event::Total(t)) => {
                        progress.finish();
                        report::write_perft(&mut out, depth, t.nodes, t.elapsed_seconds, t.nps)?;
                    }
                    _ => {}
                }
            }
            progress.finish();
        }
        Command::Divide { pos, threads, depth } => {
            let mut c = client(remote).await?;
            let req =
                pb::PerftRequest { position: Some(position_pb(&pos)), depth, threads: threads as u32, hash_mb: 0 };
            let mut stream = c.perft(req).await.map_err(status_error)?.into_inner();
            let progress = Progress::units(0, "root moves");
            let mut moves = 0usize;
            while let Some(ev) = stream.message().await.map_err(status_error)? {
                match ev.event {
                    Some(pb::perft_response::Event::Divide(d)) => {
                        moves += 1;
                        progress.suspend(|| report::write_divide_row(&mut out, &d.r#move, &d.san, d.nodes))?;
                    }
                    Some(pb::perft_response::Event::Progress(p)) => {
                        progress.set(p.moves_done.into(), p.moves_total.into());
                        progress.set_nodes(p.nodes);
                    }
                    Some(pb::perft_response::Event::Total(t)) => {
                        progress.finish();
                        report::write_divide_total(&mut out, depth, t.nodes, moves)?;
                    }
                    None => {}
                }
            }
            progress.finish();
        }
        Command::Moves { pos, san, fens } => {
            let mut c = client(remote).await?;
            let r = c
                .legal_moves(pb::LegalMovesRequest { position: Some(position_pb(&pos)) })
                .await
                .map_err(status_error)?
                .into_inner();
            let count = r.moves.len();
            for m in r.moves {
                report::write_move_row(&mut out, &m.uci, &m.san, &m.fen, san, fens)?;
            }
            report::write_moves_total(&mut out, &r.fen, count)?;
        }
        Command::Validate { pos, mv } => {
            let mut c = client(remote).await?;
            let r = c
                .validate_move(pb::ValidateMoveRequest { position: Some(position_pb(&pos)), r#move: mv.clone() })
                .await
                .map_err(status_error)?
                .into_inner();
            if r.legal {
                let outcome = r.outcome.map(|o| o.description);
                report::write_legal(&mut out, &r.uci, &r.san, &r.fen, outcome.as_deref(), &r.claimable_draw)?;
            } else {
                report::write_illegal(&mut out, &mv, &r.reason)?;
                return Err(crate::IllegalMove(r.reason).into());
            }
        }
        Command::Analyze { pos, search: crate::SearchArgs { depth, nodes, movetime, multipv, threads } } => {
            let mut c = client(remote).await?;
            let req = pb::AnalyzeRequest {
                position: Some(position_pb(&pos)),
                depth: depth.unwrap_or(0),
                nodes: nodes.unwrap_or(0),
                movetime_ms: movetime.unwrap_or(0) as u32,
                multipv,
                threads,
            };
            let mut stream = c.analyze(req).await.map_err(status_error)?.into_inner();
            while let Some(ev) = stream.message().await.map_err(status_error)? {
                match ev.event {
                    Some(pb::analyze_response::Event::Info(i)) => {
                        for l in i.lines {
                            let line = InfoLine {
                                depth: i.depth,
                                seldepth: i.seldepth,
                                multipv: l.multipv,
                                score: score(&l.score),
                                nodes: i.nodes,
                                nps: i.nps,
                                time_ms: i.time_ms,
                                pv: l.pv,
                                pv_san: l.pv_san,
                            };
                            line.write(&mut out)?;
                        }
                    }
                    Some(pb::analyze_response::Event::BestMove(b)) => {
                        let best =
                            (!b.best_move.is_empty()).then_some((b.best_move.as_str(), b.best_move_san.as_str()));
                        report::write_bestmove(&mut out, best)?;
                    }
                    None => {}
                }
            }
        }
        Command::Epd { file, variant, max_depth, threads, fanout: f } => {
            drop(out);
            return fanout::epd(remote, &file, &variant, max_depth, threads, &f).await;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ended_connection_says_what_happened_and_where() {
        let closed = ended("10.0.0.1:50051", Some(Ending::Closed), false);
        assert_eq!(closed, "10.0.0.1:50051 closed the connection (the server stopped or hung up)");
        let reset = ended("10.0.0.1:50051", Some(Ending::Failed("Connection reset by peer".into())), true);
        assert_eq!(reset, "the connection to 10.0.0.1:50051 failed: Connection reset by peer");
        // Only a TLS connection without a client certificate gets the hint.
        assert!(ended("h:443", Some(Ending::Closed), true).ends_with("--client-cert, --client-key"));
        assert!(!ended("h:80", None, false).contains("certificate"));
    }
}
