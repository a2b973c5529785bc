//! Admission control and job threads: CPU work runs on its own threads,
//! never on the async runtime, bounded by a semaphore, with a stop flag that
//! is set when the client goes away, its deadline passes, or the server
//! shuts down.

use crate::error::ServiceError;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot, watch};

/// Counters describing the jobs the server has run (exported as metrics).
#[derive(Debug)]
pub struct JobStats {
    /// Jobs admitted so far.
    pub started: AtomicU64,
    /// Jobs finished (in any way).
    pub finished: AtomicU64,
    /// Jobs stopped early (client gone, deadline, shutdown).
    pub stopped_early: AtomicU64,
    /// Jobs refused because every slot of the server was taken.
    pub refused_busy: AtomicU64,
    /// Jobs refused because the client already held its share of slots.
    pub refused_client: AtomicU64,
    /// Jobs that ended in a panic (reported as INTERNAL).
    pub panicked: AtomicU64,
    /// Perft nodes counted by finished perft work.
    pub perft_nodes: AtomicU64,
    /// Search nodes visited by finished analyses.
    pub search_nodes: AtomicU64,
    /// Seconds each admitted job waited for a slot.
    pub queue_wait: prometheus_client::metrics::histogram::Histogram,
}

impl Default for JobStats {
    fn default() -> JobStats {
        JobStats {
            started: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            stopped_early: AtomicU64::new(0),
            refused_busy: AtomicU64::new(0),
            refused_client: AtomicU64::new(0),
            panicked: AtomicU64::new(0),
            perft_nodes: AtomicU64::new(0),
            search_nodes: AtomicU64::new(0),
            queue_wait: prometheus_client::metrics::histogram::Histogram::new(
                [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0].into_iter(),
            ),
        }
    }
}

/// Who a request comes from, for per-client limits: the authenticated
/// token's name when authentication is on (inserted into the request's
/// extensions by the auth layer), else the peer's IP address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClientId(pub String);

/// The job admission controller.
#[derive(Clone)]
pub struct Jobs {
    permits: Arc<Semaphore>,
    max: usize,
    shutdown: Arc<AtomicBool>,
    abort: Arc<AtomicBool>,
    shutdown_tx: Arc<watch::Sender<bool>>,
    /// Running totals.
    pub stats: Arc<JobStats>,
}

/// A running job's admission: holds a permit and the job's stop flag.
/// Dropping the ticket (the request's future or stream was dropped) stops the job.
pub struct Ticket {
    _permit: OwnedSemaphorePermit,
    stop: Arc<AtomicBool>,
    stats: Arc<JobStats>,
}

impl Ticket {
    /// The job's stop flag.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.stats.finished.fetch_add(1, Ordering::Relaxed);
    }
}

impl Jobs {
    /// A controller admitting at most `max` jobs at once.
    pub fn new(max: usize) -> Jobs {
        Jobs {
            permits: Arc::new(Semaphore::new(max.max(1))),
            max: max.max(1),
            shutdown: Arc::new(AtomicBool::new(false)),
            abort: Arc::new(AtomicBool::new(false)),
            shutdown_tx: Arc::new(watch::channel(false).0),
            stats: Arc::new(JobStats::default()),
        }
    }

    /// Admits a job, or refuses it when all permits are taken or the server is stopping.
    pub fn admit(&self) -> Result<Ticket, ServiceError> {
        if self.shutdown.load(Ordering::Relaxed) {
            return Err(ServiceError::ShuttingDown);
        }
        let permit = self.permits.clone().try_acquire_owned().map_err(|_| ServiceError::Busy(self.max))?;
        self.stats.started.fetch_add(1, Ordering::Relaxed);
        Ok(Ticket { _permit: permit, stop: Arc::new(AtomicBool::new(false)), stats: self.stats.clone() })
    }

    /// Jobs running now.
    pub fn running(&self) -> usize {
        self.max - self.permits.available_permits()
    }

    /// The flag set when the server begins shutting down.
    pub fn shutdown_flag(&self) -> Arc<AtomicBool> {
        self.shutdown.clone()
    }

    /// The flag set when the shutdown's grace period is over: in-flight
    /// unary calls (which the shutdown itself lets finish) stop then.
    pub fn abort_flag(&self) -> Arc<AtomicBool> {
        self.abort.clone()
    }

    /// Starts the shutdown: no new jobs, running streams end.
    pub fn begin_shutdown(&self) {
        self.shutdown.store(true, Ordering::Relaxed);
        self.shutdown_tx.send_replace(true);
    }

    /// Ends the grace period: every job still running stops.
    pub fn abort(&self) {
        self.begin_shutdown();
        self.abort.store(true, Ordering::Relaxed);
    }

    /// Resolves once the shutdown has begun (for streams that wait on the
    /// client rather than on a job).
    pub fn shutdown_started(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut rx = self.shutdown_tx.subscribe();
        async move {
            let _ = rx.wait_for(|&s| s).await;
        }
    }
}

/// Why a job's work stopped before it was done, checked in this order.
#[derive(Clone)]
pub struct Watch {
    /// Set when the client went away (or the ticket was dropped).
    pub stop: Arc<AtomicBool>,
    /// Set when the server shuts down (streams), or when its grace period
    /// is over (unary calls).
    pub shutdown: Arc<AtomicBool>,
    /// The client's deadline.
    pub deadline: Option<Instant>,
    /// Where jobs stopped early are counted.
    pub stats: Arc<JobStats>,
}

impl Watch {
    /// Records that work stopped before it was done and says why: `known`,
    /// else the watched reason, else the client left.
    pub fn stopped_early(&self, known: Option<ServiceError>) -> ServiceError {
        self.stats.stopped_early.fetch_add(1, Ordering::Relaxed);
        known.or_else(|| self.reason()).unwrap_or(ServiceError::Cancelled)
    }

    /// The reason to stop now, if any.
    pub fn reason(&self) -> Option<ServiceError> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(ServiceError::Deadline)
        } else if self.shutdown.load(Ordering::Relaxed) {
            Some(ServiceError::ShuttingDown)
        } else if self.stop.load(Ordering::Relaxed) {
            Some(ServiceError::Cancelled)
        } else {
            None
        }
    }
}

/// Runs `f` on a dedicated thread inside `span`, catching panics; the
/// result arrives through the returned channel.
pub fn spawn<R: Send + 'static>(
    span: tracing::Span,
    f: impl FnOnce() -> Result<R, ServiceError> + Send + 'static,
) -> oneshot::Receiver<Result<R, ServiceError>> {
    let (tx, rx) = oneshot::channel();
    let body = move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| span.in_scope(f)));
        let r = r.unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            tracing::error!(panic = %msg, "job panicked");
            Err(ServiceError::Internal(msg))
        });
        let _ = tx.send(r);
    };
    if std::thread::Builder::new().name("menagerie-job".into()).stack_size(32 << 20).spawn(body).is_err() {
        // Out of threads: the receiver sees a closed channel and reports it.
        tracing::error!("could not spawn a job thread");
    }
    rx
}

/// Parses a `grpc-timeout` header value (`100m`, `5S`, ...).
pub fn parse_grpc_timeout(v: &str) -> Option<Duration> {
    let (num, unit) = v.split_at(v.len().checked_sub(1)?);
    let n: u64 = num.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n.saturating_mul(3600)),
        "M" => Duration::from_secs(n.saturating_mul(60)),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// The deadline a request carries, if any, brought forward by a small
/// margin (a tenth of the timeout, at most 50 ms): the server answers
/// `DEADLINE_EXCEEDED` just before tonic's own timeout layers (client and
/// server) give up on the call and report it as `CANCELLED`.
pub fn deadline_of<T>(req: &tonic::Request<T>) -> Option<Instant> {
    let v = req.metadata().get("grpc-timeout")?.to_str().ok()?;
    let timeout = parse_grpc_timeout(v)?;
    let margin = (timeout / 10).min(Duration::from_millis(50));
    Some(Instant::now() + (timeout - margin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_timeout_units() {
        assert_eq!(parse_grpc_timeout("100m"), Some(Duration::from_millis(100)));
        assert_eq!(parse_grpc_timeout("5S"), Some(Duration::from_secs(5)));
        assert_eq!(parse_grpc_timeout("2M"), Some(Duration::from_secs(120)));
        assert_eq!(parse_grpc_timeout("7u"), Some(Duration::from_micros(7)));
        assert_eq!(parse_grpc_timeout("x"), None);
        assert_eq!(parse_grpc_timeout(""), None);
        assert_eq!(parse_grpc_timeout("12"), None);
    }

    #[test]
    fn admission_is_bounded_and_tickets_release() {
        let jobs = Jobs::new(2);
        let a = jobs.admit().unwrap();
        let _b = jobs.admit().unwrap();
        assert!(matches!(jobs.admit(), Err(ServiceError::Busy(2))));
        let stop = a.stop_flag();
        drop(a);
        assert!(stop.load(Ordering::Relaxed));
        assert_eq!(jobs.running(), 1);
        assert!(jobs.admit().is_ok());
        jobs.begin_shutdown();
        assert!(matches!(jobs.admit(), Err(ServiceError::ShuttingDown)));
    }
}
