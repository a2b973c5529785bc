//! The search's tracing spans (in a test binary of its own: tracing caches
//! callsite interest process-wide, so tests running in parallel without a
//! subscriber could hide the spans from this one).
#![allow(clippy::unwrap_used)]

use menagerie_notation::fen;
use menagerie_search::{Engine, EngineOptions, Limits};
use menagerie_variants::VariantId;
use std::sync::{Arc, Mutex};

fn engine(threads: usize, multipv: usize) -> Engine {
    Engine::new(EngineOptions { hash_mb: 16, threads, multipv })
}

#[test]
fn tracing_records_iteration_spans() {
    use tracing_subscriber::layer::SubscriberExt;
    #[derive(Default, Clone)]
    struct Spans(Arc<Mutex<Vec<String>>>);
    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Spans {
        fn on_new_span(
            &self,
            attrs: &tracing::span::Attributes<'_>,
            _id: &tracing::span::Id,
            _ctx: tracing_subscriber::layer::Context<'_, S>,
        ) {
            self.0.lock().unwrap().push(attrs.metadata().name().to_string());
        }
        fn on_record(
            &self,
            _id: &tracing::span::Id,
            values: &tracing::span::Record<'_>,
            _ctx: tracing_subscriber::layer::Context<'_, S>,
        ) {
            struct V(Vec<String>);
            impl tracing::field::Visit for V {
                fn record_debug(&mut self, f: &tracing::field::Field, _: &dyn std::fmt::Debug) {
                    self.0.push(f.name().to_string());
                }
            }
            let mut v = V(Vec::new());
            values.record(&mut v);
            self.0.lock().unwrap().extend(v.0.into_iter().map(|n| format!("field:{n}")));
        }
    }
    let spans = Spans::default();
    let subscriber = tracing_subscriber::registry().with(spans.clone());
    tracing::subscriber::with_default(subscriber, || {
        // The engine's search thread reports to the caller's subscriber.
        let mut e = engine(1, 1);
        e.set_position(fen::parse_or_start(VariantId::Chess, "").unwrap(), &[]).unwrap();
        e.search(Limits::depth(4), |_| {});
    });
    let seen = spans.0.lock().unwrap().clone();
    assert!(seen.iter().any(|s| s == "search"), "{seen:?}");
    assert!(seen.iter().filter(|s| *s == "iteration").count() >= 4, "{seen:?}");
    for f in ["score", "nodes", "nps", "pv", "hashfull", "seldepth"] {
        assert!(seen.iter().any(|s| *s == format!("field:{f}")), "missing {f}: {seen:?}");
    }
}
