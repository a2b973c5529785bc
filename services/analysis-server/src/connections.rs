//! The API listener's connection limits: at most `--max-connections` open
//! at once (more are accepted and closed at once, so that the server never
//! runs out of file descriptors), a pause instead of a busy loop when
//! `accept` fails (out of file descriptors), a connection that does not send
//! its first bytes (the HTTP/2 preface or a TLS ClientHello) within
//! `--handshake-timeout-ms` is closed, and so is one with no call open for
//! `--idle-timeout-ms`. Each is logged when it bites, at most once every ten
//! seconds.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_stream::Stream;
use tonic::transport::server::{Connected, TcpConnectInfo, TcpIncoming};

/// File descriptors kept out of the connection budget (listeners, the
/// metrics and health listeners' connections, files, the runtime).
const RESERVED_FDS: u64 = 256;

/// Connections open at once on the health listener, and on the metrics
/// listener (probes and scrapers need a few; more are closed at once).
pub const PROBE_CONNECTIONS: usize = 64;

/// Connection limits (flags).
#[derive(clap::Args, Clone, Debug)]
pub struct ConnectionConfig {
    /// Connections open at once on the API listener; more are closed as soon as they are accepted
    /// [default: 3/4 of the open-file limit less 256, at most 10,000].
    #[arg(long, env = "MENAGERIE_MAX_CONNECTIONS")]
    pub max_connections: Option<usize>,
    /// Calls (HTTP/2 streams) one connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS;
    /// a client waits for one to end before it opens more).
    #[arg(long, env = "MENAGERIE_MAX_STREAMS_PER_CONNECTION", default_value_t = 256)]
    pub max_streams_per_connection: u32,
    /// Interval of HTTP/2 keepalive PINGs on a connection the client has sent nothing on; a
    /// connection whose client does not answer one within 20 s is closed, in milliseconds; 0: off.
    #[arg(long, env = "MENAGERIE_KEEPALIVE_MS", default_value_t = 60_000)]
    pub keepalive_ms: u64,
    /// Time a new connection has to send its first 24 bytes (the HTTP/2 preface, or a TLS
    /// ClientHello) before it is closed, in milliseconds; 0: no limit.
    #[arg(long, env = "MENAGERIE_HANDSHAKE_TIMEOUT_MS", default_value_t = 10_000)]
    pub handshake_timeout_ms: u64,
    /// A connection with no call open for this long is closed (clients reconnect on their next
    /// call), in milliseconds; 0: never.
    #[arg(long, env = "MENAGERIE_IDLE_TIMEOUT_MS", default_value_t = 300_000)]
    pub idle_timeout_ms: u64,
}

impl ConnectionConfig {
    /// The connection cap: `--max-connections`, or the default from the open-file limit.
    pub fn max_connections(&self) -> usize {
        self.max_connections.unwrap_or_else(|| default_max_connections(open_file_limit())).max(1)
    }
    /// The HTTP/2 keepalive interval (`None`: off).
    pub fn keepalive(&self) -> Option<Duration> {
        (self.keepalive_ms > 0).then(|| Duration::from_millis(self.keepalive_ms))
    }
    /// The handshake and idle timeouts.
    pub fn timeouts(&self) -> Timeouts {
        let ms = |t: u64| (t > 0).then(|| Duration::from_millis(t));
        Timeouts { handshake: ms(self.handshake_timeout_ms), idle: ms(self.idle_timeout_ms) }
    }
}

/// How long a connection may stay silent before it is closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// To send its first 24 bytes (`None`: no limit).
    pub handshake: Option<Duration>,
    /// With no call open (`None`: no limit).
    pub idle: Option<Duration>,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts { handshake: Some(Duration::from_secs(10)), idle: Some(Duration::from_secs(300)) }
    }
}

/// Bytes a connection must send within the handshake timeout: the length
/// of the HTTP/2 client preface (a TLS ClientHello is longer).
const PREFACE_LEN: usize = 24;

/// A connection's key: its local and remote addresses.
type ConnKey = (SocketAddr, SocketAddr);

/// The calls open on each connection of the API listener: counted by the
/// call observer ([`crate::metrics::ObserveLayer`]), read by the idle
/// timeout.
#[derive(Clone, Debug, Default)]
pub struct Activity(Arc<Mutex<HashMap<ConnKey, Arc<ConnState>>>>);

/// One connection's open calls and when the last one ended.
#[derive(Debug)]
struct ConnState {
    open: AtomicUsize,
    idle_since: Mutex<tokio::time::Instant>,
}

impl ConnState {
    fn idle_since(&self) -> tokio::time::Instant {
        *self.idle_since.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Activity {
    fn register(&self, key: ConnKey) -> Arc<ConnState> {
        let state =
            Arc::new(ConnState { open: AtomicUsize::new(0), idle_since: Mutex::new(tokio::time::Instant::now()) });
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(key, state.clone());
        state
    }

    fn forget(&self, key: &ConnKey) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
    }

    /// Counts a call open on the connection from `remote` to `local` until
    /// the guard is dropped (`None`: not a connection of this listener).
    pub fn call_started(&self, local: SocketAddr, remote: SocketAddr) -> Option<OpenCall> {
        let state = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&(local, remote)).cloned()?;
        state.open.fetch_add(1, Ordering::SeqCst);
        Some(OpenCall(state))
    }
}

/// A call counted as open on its connection until dropped.
#[derive(Debug)]
pub struct OpenCall(Arc<ConnState>);

impl Drop for OpenCall {
    fn drop(&mut self) {
        *self.0.idle_since.lock().unwrap_or_else(|e| e.into_inner()) = tokio::time::Instant::now();
        self.0.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Warnings shared by the listener's connections.
struct Warnings {
    handshake: RateLimited,
    idle: RateLimited,
}

/// The default connection cap for an open-file limit of `fds`.
pub fn default_max_connections(fds: u64) -> usize {
    let cap = fds.saturating_sub(RESERVED_FDS).max(fds / 4) * 3 / 4;
    cap.clamp(1, 10_000) as usize
}

/// The soft limit on open files (`RLIMIT_NOFILE`), raised to the hard limit
/// first where allowed; 1,024 where it cannot be read.
#[cfg(target_os = "linux")]
pub fn open_file_limit() -> u64 {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 1024;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit { rlim_cur: lim.rlim_max.min(1 << 20), rlim_max: lim.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim.rlim_cur = raised.rlim_cur;
            }
        }
    }
    lim.rlim_cur
}

/// The soft limit on open files; 1,024 where it cannot be read.
#[cfg(not(target_os = "linux"))]
pub fn open_file_limit() -> u64 {
    1024
}

/// A warning logged at most once every ten seconds, with the count of the
/// occurrences it stood for.
struct RateLimited {
    start: Instant,
    last: AtomicU64,
    count: AtomicU64,
}

impl RateLimited {
    fn new() -> Self {
        RateLimited { start: Instant::now(), last: AtomicU64::new(0), count: AtomicU64::new(0) }
    }
    /// Counts one occurrence; `Some(count)` when it is time to log.
    fn hit(&self) -> Option<u64> {
        self.count.fetch_add(1, Ordering::Relaxed);
        let now = self.start.elapsed().as_millis() as u64 + 10_000;
        let last = self.last.load(Ordering::Relaxed);
        if now.saturating_sub(last) >= 10_000
            && self.last.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_ok()
        {
            return Some(self.count.swap(0, Ordering::Relaxed));
        }
        None
    }
}

/// The API listener's connections, at most `max` at once, each closed
/// when it stays silent past its [`Timeouts`].
pub struct Limited {
    inner: TcpIncoming,
    permits: Arc<Semaphore>,
    max: usize,
    backoff: Option<Pin<Box<tokio::time::Sleep>>>,
    refused: RateLimited,
    failed: RateLimited,
    timeouts: Timeouts,
    activity: Activity,
    warnings: Arc<Warnings>,
}

impl Limited {
    /// Connections of `inner`, at most `max` open at once, closed past
    /// `timeouts`; their calls are counted in `activity`.
    pub fn new(inner: TcpIncoming, max: usize, timeouts: Timeouts, activity: Activity) -> Self {
        Limited {
            inner,
            permits: Arc::new(Semaphore::new(max)),
            max,
            backoff: None,
            refused: RateLimited::new(),
            failed: RateLimited::new(),
            timeouts,
            activity,
            warnings: Arc::new(Warnings { handshake: RateLimited::new(), idle: RateLimited::new() }),
        }
    }

    fn watch(&self, io: TcpStream, permit: OwnedSemaphorePermit) -> Conn {
        let key = io.local_addr().ok().zip(io.peer_addr().ok());
        let state = match key {
            Some(key) => self.activity.register(key),
            None => {
                Arc::new(ConnState { open: AtomicUsize::new(0), idle_since: Mutex::new(tokio::time::Instant::now()) })
            }
        };
        let first = self.timeouts.handshake.or(self.timeouts.idle);
        let timer = first.map(|t| Box::pin(tokio::time::sleep(t)));
        Conn {
            io,
            _permit: permit,
            key,
            state,
            activity: self.activity.clone(),
            timeouts: self.timeouts,
            received: 0,
            timer,
            warnings: self.warnings.clone(),
        }
    }
}

impl Stream for Limited {
    type Item = std::io::Result<Conn>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some(sleep) = self.backoff.as_mut() {
                if sleep.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                self.backoff = None;
            }
            match Pin::new(&mut self.inner).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Ready(Some(Ok(io))) => match self.permits.clone().try_acquire_owned() {
                    Ok(permit) => return Poll::Ready(Some(Ok(self.watch(io, permit)))),
                    Err(_) => {
                        // Closed at once: the client sees the connection end
                        // instead of waiting in the listen backlog.
                        drop(io);
                        if let Some(n) = self.refused.hit() {
                            tracing::warn!(
                                max_connections = self.max,
                                refused = n,
                                "connection limit reached: refusing new connections (the API listener's \
                                 --max-connections; the health listener's is fixed)"
                            );
                        }
                    }
                },
                Poll::Ready(Some(Err(e))) => {
                    // Out of file descriptors (or another accept failure):
                    // the pending connection stays in the backlog and accept
                    // would fail again at once, so wait before retrying.
                    if let Some(n) = self.failed.hit() {
                        tracing::warn!(error = %e, failures = n, "cannot accept connections; retrying in 100 ms");
                    }
                    self.backoff = Some(Box::pin(tokio::time::sleep(Duration::from_millis(100))));
                }
            }
        }
    }
}

/// An accepted connection holding its place under the cap until it closes.
pub struct Conn {
    io: TcpStream,
    _permit: OwnedSemaphorePermit,
    key: Option<ConnKey>,
    state: Arc<ConnState>,
    activity: Activity,
    timeouts: Timeouts,
    /// Bytes received, counted up to [`PREFACE_LEN`].
    received: usize,
    /// The next handshake or idle deadline.
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    warnings: Arc<Warnings>,
}

impl Conn {
    /// At a deadline: the next one (`Ok(None)`: no more), or why the
    /// connection is closed.
    fn next_deadline(&self) -> Result<Option<tokio::time::Instant>, String> {
        let now = tokio::time::Instant::now();
        if self.received < PREFACE_LEN {
            if let Some(t) = self.timeouts.handshake {
                if let Some(n) = self.warnings.handshake.hit() {
                    tracing::warn!(
                        closed = n,
                        "closing connections that sent no HTTP/2 preface or TLS handshake in time (--handshake-timeout-ms)"
                    );
                }
                return Err(format!("no HTTP/2 preface or TLS handshake within {} ms", t.as_millis()));
            }
        }
        let Some(idle) = self.timeouts.idle else { return Ok(None) };
        if self.state.open.load(Ordering::SeqCst) > 0 {
            return Ok(Some(now + idle));
        }
        let end = self.state.idle_since() + idle;
        if end > now {
            return Ok(Some(end));
        }
        if let Some(n) = self.warnings.idle.hit() {
            tracing::info!(closed = n, "closing connections with no call open (--idle-timeout-ms)");
        }
        Err(format!("no call for {} ms", idle.as_millis()))
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        if let Some(key) = &self.key {
            self.activity.forget(key);
        }
    }
}

impl Connected for Conn {
    type ConnectInfo = TcpConnectInfo;
    fn connect_info(&self) -> TcpConnectInfo {
        self.io.connect_info()
    }
}

impl AsyncRead for Conn {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        // The server always has a read pending on a connection: the timer
        // polled here wakes it at the deadline.
        while let Some(timer) = this.timer.as_mut() {
            if timer.as_mut().poll(cx).is_pending() {
                break;
            }
            match this.next_deadline() {
                Ok(Some(at)) => {
                    if let Some(timer) = this.timer.as_mut() {
                        timer.as_mut().reset(at);
                    }
                }
                Ok(None) => this.timer = None,
                Err(why) => {
                    this.timer = None;
                    return Poll::Ready(Err(std::io::Error::new(std::io::ErrorKind::TimedOut, why)));
                }
            }
        }
        let before = buf.filled().len();
        let read = Pin::new(&mut this.io).poll_read(cx, buf);
        if this.received < PREFACE_LEN {
            this.received += buf.filled().len() - before;
            if this.received >= PREFACE_LEN && this.timeouts.handshake.is_some() {
                // Handshake done: the idle deadline takes over.
                this.timer =
                    this.timeouts.idle.map(|t| Box::pin(tokio::time::sleep_until(this.state.idle_since() + t)));
                if let Some(timer) = this.timer.as_mut() {
                    let _ = timer.as_mut().poll(cx);
                }
            }
        }
        read
    }
}

impl AsyncWrite for Conn {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_cap_stays_below_the_open_file_limit() {
        assert_eq!(default_max_connections(1024), 576);
        assert!(default_max_connections(256) < 256);
        assert_eq!(default_max_connections(1 << 20), 10_000);
        assert!(default_max_connections(0) >= 1);
    }
}
