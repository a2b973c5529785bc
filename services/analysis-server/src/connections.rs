//! The API listener's connection limits: at most `--max-connections` open
//! at once (more are accepted and closed at once, so that the server never
//! runs out of file descriptors), and a pause instead of a busy loop when
//! `accept` fails (out of file descriptors). Both are logged, at most once
//! every ten seconds.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
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

/// The API listener's connections, at most `max` at once.
pub struct Limited {
    inner: TcpIncoming,
    permits: Arc<Semaphore>,
    max: usize,
    backoff: Option<Pin<Box<tokio::time::Sleep>>>,
    refused: RateLimited,
    failed: RateLimited,
}

impl Limited {
    /// Connections of `inner`, at most `max` open at once.
    pub fn new(inner: TcpIncoming, max: usize) -> Self {
        Limited {
            inner,
            permits: Arc::new(Semaphore::new(max)),
            max,
            backoff: None,
            refused: RateLimited::new(),
            failed: RateLimited::new(),
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
                    Ok(permit) => return Poll::Ready(Some(Ok(Conn { io, _permit: permit }))),
                    Err(_) => {
                        // Closed at once: the client sees the connection end
                        // instead of waiting in the listen backlog.
                        drop(io);
                        if let Some(n) = self.refused.hit() {
                            tracing::warn!(
                                max_connections = self.max,
                                refused = n,
                                "connection limit reached: refusing new connections (--max-connections)"
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
}

impl Connected for Conn {
    type ConnectInfo = TcpConnectInfo;
    fn connect_info(&self) -> TcpConnectInfo {
        self.io.connect_info()
    }
}

impl AsyncRead for Conn {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
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
