//! Admission control and job threads: CPU work runs on its own threads,
//! never on the async runtime, bounded by a semaphore, with a stop flag that
//! is set when the client goes away, its deadline passes, or the server
//! shuts down.

use crate::error::ServiceError;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot, watch};

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
            queue_wait: prometheus_client::metrics::histogram::Histogram::new([
                0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0,
            ]),
        }
    }
}

/// Who a request comes from, for per-client limits: the authenticated
/// token's name when authentication is on (inserted into the request's
/// extensions by the auth layer), else the peer's IP address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClientId(pub String);

/// The job admission controller: job slots (server-wide and per client),
/// the pool for CPU-heavy unary work, and the shutdown flags.
#[derive(Clone)]
pub struct Jobs {
    permits: Arc<Semaphore>,
    max: usize,
    per_client: usize,
    clients: Arc<Mutex<HashMap<ClientId, usize>>>,
    unary: Arc<Semaphore>,
    unary_wait: Duration,
    queue_wait: Duration,
    max_queued: usize,
    queued: Arc<AtomicUsize>,
    nice: i32,
    shutdown: Arc<AtomicBool>,
    abort: Arc<AtomicBool>,
    shutdown_tx: Arc<watch::Sender<bool>>,
    /// Running totals.
    pub stats: Arc<JobStats>,
}

/// How many jobs and how much unary work the server takes at once.
#[derive(Clone, Copy, Debug)]
pub struct Capacity {
    /// Job slots (perft, analysis, batch streams) on the whole server.
    pub jobs: usize,
    /// Job slots one client may hold or wait for at once.
    pub jobs_per_client: usize,
    /// Longest a job waits for a free slot (first come, first served)
    /// before RESOURCE_EXHAUSTED; zero: refuse at once.
    pub queue_wait: Duration,
    /// Jobs that may wait for a slot at once; more are refused at once.
    pub max_queued: usize,
    /// Nice value of job threads (and the threads they start), so that the
    /// async runtime (health checks, unary calls) keeps the CPU it needs; 0: off.
    pub nice: i32,
    /// Unary calls (validation, legal moves) computing at once; more wait.
    pub unary: usize,
    /// Longest a unary call waits for its turn before RESOURCE_EXHAUSTED.
    pub unary_wait: Duration,
}

/// A running job's admission: holds a slot and the job's stop flag.
/// Dropping the ticket (the request's future or stream was dropped) stops
/// the job and gives the slot back.
pub struct Ticket {
    _permit: OwnedSemaphorePermit,
    _share: ClientShare,
    stop: Arc<AtomicBool>,
    stats: Arc<JobStats>,
}

/// One of a client's shares of the slots (held while its job waits or runs).
struct ClientShare {
    client: ClientId,
    clients: Arc<Mutex<HashMap<ClientId, usize>>>,
}

impl Drop for ClientShare {
    fn drop(&mut self) {
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = clients.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                clients.remove(&self.client);
            }
        }
    }
}

/// Counts a job waiting for a slot while it waits.
struct Waiting(Arc<AtomicUsize>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
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
    /// A controller with `capacity`.
    pub fn new(capacity: Capacity) -> Jobs {
        install_panic_hook();
        let max = capacity.jobs.max(1);
        Jobs {
            permits: Arc::new(Semaphore::new(max)),
            max,
            per_client: capacity.jobs_per_client.clamp(1, max),
            clients: Arc::default(),
            unary: Arc::new(Semaphore::new(capacity.unary.max(1))),
            unary_wait: capacity.unary_wait,
            queue_wait: capacity.queue_wait,
            max_queued: capacity.max_queued,
            queued: Arc::default(),
            nice: capacity.nice,
            shutdown: Arc::new(AtomicBool::new(false)),
            abort: Arc::new(AtomicBool::new(false)),
            shutdown_tx: Arc::new(watch::channel(false).0),
            stats: Arc::new(JobStats::default()),
        }
    }

    /// Admits a job for `client`: at once when a slot is free, else after
    /// waiting its turn (first come, first served) at most the queue wait
    /// or until `deadline`. Refuses it when the client already holds or
    /// waits for its share of slots, too many jobs wait, the wait runs out,
    /// or the server is stopping.
    pub async fn admit(&self, client: &ClientId, deadline: Option<Instant>) -> Result<Ticket, ServiceError> {
        if self.shutting_down() {
            return Err(ServiceError::ShuttingDown);
        }
        let share = {
            let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
            let held = clients.entry(client.clone()).or_default();
            if *held >= self.per_client {
                self.stats.refused_client.fetch_add(1, Ordering::Relaxed);
                return Err(ServiceError::ClientBusy(self.per_client));
            }
            *held += 1;
            ClientShare { client: client.clone(), clients: self.clients.clone() }
        };
        let t0 = Instant::now();
        let permit = match self.permits.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                let busy = || {
                    self.stats.refused_busy.fetch_add(1, Ordering::Relaxed);
                    ServiceError::Busy(self.max)
                };
                if self.queue_wait.is_zero() || self.queued.fetch_add(1, Ordering::Relaxed) >= self.max_queued {
                    if !self.queue_wait.is_zero() {
                        self.queued.fetch_sub(1, Ordering::Relaxed);
                    }
                    return Err(busy());
                }
                let _waiting = Waiting(self.queued.clone());
                let give_up =
                    t0.checked_add(self.queue_wait).map_or(deadline, |w| Some(deadline.map_or(w, |d| d.min(w))));
                let until = give_up.map_or_else(|| tokio::time::Instant::now() + self.queue_wait, Into::into);
                tokio::select! {
                    p = tokio::time::timeout_at(until, self.permits.clone().acquire_owned()) => match p {
                        Ok(Ok(p)) => p,
                        Ok(Err(_)) => return Err(ServiceError::ShuttingDown),
                        Err(_) if deadline.is_some_and(|d| Instant::now() >= d) => return Err(ServiceError::Deadline),
                        Err(_) => return Err(busy()),
                    },
                    () = self.shutdown_started() => return Err(ServiceError::ShuttingDown),
                }
            }
        };
        self.stats.started.fetch_add(1, Ordering::Relaxed);
        self.stats.queue_wait.observe(t0.elapsed().as_secs_f64());
        Ok(Ticket { _permit: permit, _share: share, stop: Arc::new(AtomicBool::new(false)), stats: self.stats.clone() })
    }

    /// Jobs running now.
    pub fn running(&self) -> usize {
        self.max - self.permits.available_permits()
    }

    /// Jobs `client` is running now.
    pub fn running_for(&self, client: &ClientId) -> usize {
        self.clients.lock().unwrap_or_else(|e| e.into_inner()).get(client).copied().unwrap_or(0)
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

    /// Starts the shutdown: no new jobs or unary calls, running streams end.
    pub fn begin_shutdown(&self) {
        self.shutdown.store(true, Ordering::Relaxed);
        self.shutdown_tx.send_replace(true);
    }

    /// Whether the shutdown has begun.
    pub fn shutting_down(&self) -> bool {
        self.shutdown.load(Ordering::Relaxed)
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

    /// Runs CPU-heavy unary work off the async runtime, at most
    /// `Capacity::unary` at once: waits its turn (counted in
    /// `queue_wait`) until `deadline` or `Capacity::unary_wait`, then runs
    /// `f` on a blocking thread inside `span`. A panic becomes `INTERNAL`.
    pub async fn run_unary<R: Send + 'static>(
        &self,
        span: tracing::Span,
        deadline: Option<Instant>,
        f: impl FnOnce() -> Result<R, ServiceError> + Send + 'static,
    ) -> Result<R, ServiceError> {
        if self.shutting_down() {
            return Err(ServiceError::ShuttingDown);
        }
        let t0 = Instant::now();
        let give_up = t0.checked_add(self.unary_wait).map_or(deadline, |w| Some(deadline.map_or(w, |d| d.min(w))));
        let acquire = self.unary.clone().acquire_owned();
        let permit = match give_up {
            Some(t) => match tokio::time::timeout_at(t.into(), acquire).await {
                Ok(p) => p,
                Err(_) if deadline.is_some_and(|d| Instant::now() >= d) => return Err(ServiceError::Deadline),
                Err(_) => {
                    self.stats.refused_busy.fetch_add(1, Ordering::Relaxed);
                    return Err(ServiceError::Busy(self.max));
                }
            },
            None => acquire.await,
        }
        .map_err(|_| ServiceError::ShuttingDown)?;
        self.stats.queue_wait.observe(t0.elapsed().as_secs_f64());
        let stats = self.stats.clone();
        let r = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            catch(&stats, || span.in_scope(f))
        })
        .await;
        r.unwrap_or_else(|e| Err(ServiceError::Internal(format!("unary task lost: {e}"))))
    }

    /// Runs `f` on a dedicated job thread inside `span`; a panic becomes
    /// `INTERNAL` (logged once, counted); the result arrives through the
    /// returned channel.
    pub fn spawn<R: Send + 'static>(
        &self,
        span: tracing::Span,
        f: impl FnOnce() -> Result<R, ServiceError> + Send + 'static,
    ) -> oneshot::Receiver<Result<R, ServiceError>> {
        let (tx, rx) = oneshot::channel();
        let stats = self.stats.clone();
        let nice = self.nice;
        let body = move || {
            lower_priority(nice);
            let _ = tx.send(catch(&stats, || span.in_scope(f)));
        };
        if std::thread::Builder::new().name("menagerie-job".into()).stack_size(32 << 20).spawn(body).is_err() {
            // Out of threads: the receiver sees a closed channel and reports it.
            tracing::error!("could not spawn a job thread");
        }
        rx
    }
}

/// Lowers the calling thread's scheduling priority to `nice` (Linux: a
/// per-thread value, inherited by the threads it starts).
fn lower_priority(nice: i32) {
    #[cfg(target_os = "linux")]
    if nice > 0 {
        // SAFETY: setpriority has no memory-safety preconditions; `who` 0
        // is the calling thread on Linux.
        let r = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) };
        if r != 0 {
            tracing::debug!(nice, "could not lower the job thread's priority");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}

/// Runs `f`, turning a panic into `INTERNAL` (counted in `stats.panicked`;
/// the panic hook has logged it, once, with its location).
pub fn catch<R>(stats: &JobStats, f: impl FnOnce() -> Result<R, ServiceError>) -> Result<R, ServiceError> {
    let was = IN_JOB.with(|j| j.replace(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    IN_JOB.with(|j| j.set(was));
    r.unwrap_or_else(|p| {
        stats.panicked.fetch_add(1, Ordering::Relaxed);
        Err(ServiceError::Internal(panic_message(p.as_ref())))
    })
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

thread_local! {
    /// Set while a thread runs a job's work under [`catch`].
    static IN_JOB: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs a panic hook that reports a panic in a job (a thread running
/// [`catch`], or one named `menagerie-…`) as one `tracing` error event
/// naming the thread and the location, instead of a backtrace on stderr;
/// other panics go to the previous hook. `std::thread::scope` re-raises a
/// worker's panic in its parent; that second panic is not logged again.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let thread = std::thread::current();
            let name = thread.name().unwrap_or("?");
            if !IN_JOB.with(|j| j.get()) && !name.starts_with("menagerie-") {
                return previous(info);
            }
            let msg = panic_message(info.payload());
            if msg == "a scoped thread panicked" {
                return;
            }
            let location = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
            tracing::error!(thread = name, %location, panic = %msg, "panic in a job");
        }));
    });
}

/// Sends a job's events to its client: waits for room in the stream (the
/// client reading) at most the stream's idle timeout, and gives up at once
/// when the job must stop.
pub struct EventSender<T> {
    tx: mpsc::Sender<Result<T, tonic::Status>>,
    idle: Duration,
    rt: tokio::runtime::Handle,
}

impl<T> Clone for EventSender<T> {
    fn clone(&self) -> Self {
        EventSender { tx: self.tx.clone(), idle: self.idle, rt: self.rt.clone() }
    }
}

impl<T: Send> EventSender<T> {
    /// A sender on `tx`; must be created on the async runtime.
    pub fn new(tx: mpsc::Sender<Result<T, tonic::Status>>, idle: Duration) -> EventSender<T> {
        EventSender { tx, idle, rt: tokio::runtime::Handle::current() }
    }

    /// Sends `item` from a job thread; an error says why the job should stop.
    pub fn send(&self, item: Result<T, tonic::Status>, watch: &Watch) -> Result<(), ServiceError> {
        let t0 = Instant::now();
        loop {
            if let Some(reason) = watch.reason() {
                return Err(reason);
            }
            let slice = Duration::from_millis(20);
            match self.rt.block_on(async { tokio::time::timeout(slice, self.tx.reserve()).await }) {
                Ok(Ok(permit)) => {
                    permit.send(item);
                    return Ok(());
                }
                Ok(Err(_)) => return Err(ServiceError::Cancelled),
                Err(_) if t0.elapsed() >= self.idle => return Err(ServiceError::Idle(self.idle)),
                Err(_) => {}
            }
        }
    }

    /// Sends a stream's last item (its result or its error), waiting for
    /// room at most a second: a client that reads nothing will not see it.
    pub fn send_last(&self, item: Result<T, tonic::Status>) {
        let wait = self.idle.min(Duration::from_secs(1));
        let _ = self.rt.block_on(async { tokio::time::timeout(wait, self.tx.send(item)).await });
    }

    /// Sends `item` if there is room now (progress reports that may be dropped).
    pub fn offer(&self, item: Result<T, tonic::Status>) {
        let _ = self.tx.try_send(item);
    }

    /// Whether the client has gone.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
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
    // A timeout too far away to represent (`18446744073709551615S`) is no deadline.
    Instant::now().checked_add(timeout - margin)
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
    fn an_enormous_timeout_is_no_deadline() {
        let mut req = tonic::Request::new(());
        req.metadata_mut().insert("grpc-timeout", "18446744073709551615S".parse().unwrap());
        assert_eq!(deadline_of(&req), None);
        req.metadata_mut().insert("grpc-timeout", "18446744073709551615H".parse().unwrap());
        assert_eq!(deadline_of(&req), None);
        req.metadata_mut().insert("grpc-timeout", "5S".parse().unwrap());
        assert!(deadline_of(&req).is_some());
    }

    fn block<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
    }

    fn capacity(jobs: usize, per_client: usize) -> Capacity {
        Capacity {
            jobs,
            jobs_per_client: per_client,
            unary: 1,
            unary_wait: Duration::from_millis(10),
            queue_wait: Duration::from_millis(10),
            max_queued: 4,
            nice: 0,
        }
    }

    #[test]
    fn admission_is_bounded_and_tickets_release() {
        let jobs = Jobs::new(capacity(2, 2));
        let me = ClientId("me".into());
        let a = block(jobs.admit(&me, None)).unwrap();
        let _b = block(jobs.admit(&me, None)).unwrap();
        assert!(matches!(block(jobs.admit(&ClientId("other".into()), None)), Err(ServiceError::Busy(2))));
        let stop = a.stop_flag();
        drop(a);
        assert!(stop.load(Ordering::Relaxed));
        assert_eq!(jobs.running(), 1);
        assert!(block(jobs.admit(&me, None)).is_ok());
        jobs.begin_shutdown();
        assert!(matches!(block(jobs.admit(&me, None)), Err(ServiceError::ShuttingDown)));
    }

    #[test]
    fn one_client_cannot_take_every_slot() {
        let jobs = Jobs::new(capacity(4, 2));
        let greedy = ClientId("greedy".into());
        let held: Vec<_> = (0..2).map(|_| block(jobs.admit(&greedy, None)).unwrap()).collect();
        assert!(matches!(block(jobs.admit(&greedy, None)), Err(ServiceError::ClientBusy(2))));
        assert_eq!(jobs.stats.refused_client.load(Ordering::Relaxed), 1);
        let other = ClientId("other".into());
        let _o = block(jobs.admit(&other, None)).unwrap();
        assert_eq!(jobs.running_for(&greedy), 2);
        drop(held);
        assert_eq!(jobs.running_for(&greedy), 0);
        assert!(block(jobs.admit(&greedy, None)).is_ok());
    }

    #[test]
    fn a_panicking_job_reports_internal() {
        let jobs = Jobs::new(capacity(1, 1));
        let rx = jobs.spawn(tracing::Span::none(), || -> Result<(), ServiceError> { panic!("boom") });
        let r = rx.blocking_recv().unwrap();
        assert!(matches!(r, Err(ServiceError::Internal(m)) if m == "boom"));
        assert_eq!(jobs.stats.panicked.load(Ordering::Relaxed), 1);
    }
}
