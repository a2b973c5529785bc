//! `grpc.health.v1` whose `Watch` streams end when the server drains.
//!
//! tonic-health's `Watch` streams never end on their own, so a client
//! watching health (a load balancer, a grpc-go health checker) would hold a
//! draining server for its whole grace period. Here a `Watch` stream, once
//! the server drains, ends right after it has delivered `NOT_SERVING`.

use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::watch;
use tokio_stream::Stream;
use tokio_stream::wrappers::WatchStream;
use tonic::{Request, Response, Status};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_server::Health;
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};
use tonic_health::server::HealthService;

/// The health service, ending `Watch` streams once `draining` turns true.
pub(crate) struct DrainingHealth {
    pub inner: HealthService,
    pub draining: watch::Receiver<bool>,
}

#[tonic::async_trait]
impl Health for DrainingHealth {
    async fn check(&self, request: Request<HealthCheckRequest>) -> Result<Response<HealthCheckResponse>, Status> {
        self.inner.check(request).await
    }

    type WatchStream = EndsOnDrain<<HealthService as Health>::WatchStream>;

    async fn watch(&self, request: Request<HealthCheckRequest>) -> Result<Response<Self::WatchStream>, Status> {
        let inner = self.inner.watch(request).await?.into_inner();
        Ok(Response::new(EndsOnDrain {
            inner,
            draining: WatchStream::new(self.draining.clone()),
            drain: false,
            last_not_serving: false,
            done: false,
        }))
    }
}

/// A health `Watch` stream that ends once the server drains and the client
/// has been told `NOT_SERVING`.
pub(crate) struct EndsOnDrain<S> {
    inner: S,
    draining: WatchStream<bool>,
    drain: bool,
    last_not_serving: bool,
    done: bool,
}

impl<S> Stream for EndsOnDrain<S>
where
    S: Stream<Item = Result<HealthCheckResponse, Status>> + Unpin,
{
    type Item = Result<HealthCheckResponse, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        while let Poll::Ready(Some(d)) = Pin::new(&mut this.draining).poll_next(cx) {
            this.drain |= d;
        }
        if this.drain && this.last_not_serving {
            this.done = true;
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(r))) => {
                this.last_not_serving = r.status() == ServingStatus::NotServing;
                if this.drain && this.last_not_serving {
                    // Deliver it; the next poll ends the stream.
                    this.done = true;
                }
                Poll::Ready(Some(Ok(r)))
            }
            other => other,
        }
    }
}
