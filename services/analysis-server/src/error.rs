//! Domain errors and their single mapping to gRPC statuses.

use menagerie_app::PositionError;
use menagerie_game::MoveError;
use menagerie_notation::fen::FenError;
use thiserror::Error;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// Why a request could not be served.
#[derive(Debug, Error)]
pub enum ServiceError {
    /// A required field is missing or malformed.
    #[error("{field}: {message}")]
    BadField {
        /// The field path, e.g. `position.moves[3]`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A move in the request is legal syntax but illegal in its position.
    #[error("{field}: {message}")]
    IllegalMove {
        /// The field path.
        field: String,
        /// Why it is illegal.
        message: String,
    },
    /// A field contradicts what the rules decided about the game (a result
    /// other than a checkmate's).
    #[error("{field}: {message}")]
    Contradiction {
        /// The field path.
        field: String,
        /// What it contradicts.
        message: String,
    },
    /// The position's game is over, so there is nothing to analyse.
    #[error("the game is over: {0}")]
    GameOver(String),
    /// A limit above the server's cap.
    #[error("{field} {value} is out of range (at most {max})")]
    OutOfRange {
        /// The field path.
        field: String,
        /// The requested value.
        value: u64,
        /// The cap.
        max: u64,
    },
    /// Too many jobs are running.
    #[error("server busy: {0} jobs running; retry later")]
    Busy(usize),
    /// The client already runs as many jobs as one client may.
    #[error("this client already runs {0} jobs, the most one client may; retry when one ends")]
    ClientBusy(usize),
    /// A stream neither sent nor read for the idle timeout; its slot was freed.
    #[error("stream idle for {0:?} (the client neither sent a job nor read a result); its slot was freed")]
    Idle(std::time::Duration),
    /// Work stopped at one of the server's caps (perft time or nodes).
    #[error("stopped at the server's cap of {max} {what}; ask for less (a smaller depth, or split the work)")]
    LimitReached {
        /// What was capped: `nodes` or `ms`.
        what: &'static str,
        /// The cap.
        max: u64,
    },
    /// The server is shutting down.
    #[error("server is shutting down")]
    ShuttingDown,
    /// The client's deadline passed.
    #[error("deadline exceeded")]
    Deadline,
    /// The client cancelled.
    #[error("cancelled")]
    Cancelled,
    /// The client's request stream failed (reset, malformed message).
    #[error("request stream: {}", .0.message())]
    Client(Status),
    /// A bug (a panic in a worker), reported instead of crashing.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ServiceError {
    /// A field holding a value its enum does not name (an unknown enum
    /// number on the wire).
    pub fn unknown_value(field: &str, value: i32) -> ServiceError {
        ServiceError::BadField { field: field.into(), message: format!("unknown value {value}") }
    }

    /// A bad FEN in `field`.
    pub fn fen(field: &str, e: FenError) -> ServiceError {
        ServiceError::BadField { field: field.to_string(), message: e.to_string() }
    }

    /// A request's `position` that cannot be set up, naming the offending
    /// field (`position.variant`, `position.fen`, `position.moves[3]`).
    pub fn position(e: PositionError) -> ServiceError {
        match e {
            PositionError::UnknownVariant(e) => {
                ServiceError::BadField { field: "position.variant".into(), message: e.to_string() }
            }
            PositionError::Fen(e) => ServiceError::fen("position.fen", e),
            PositionError::TooManyMoves { count, max } => {
                ServiceError::OutOfRange { field: "position.moves".into(), value: count as u64, max: max as u64 }
            }
            PositionError::Move { index, source, .. } => ServiceError::mv(&format!("position.moves[{index}]"), source),
            PositionError::DataFen(message) => ServiceError::BadField { field: "position.fen".into(), message },
        }
    }

    /// A move in `field` that cannot be played, whichever rules engine
    /// plays the variant: FAILED_PRECONDITION ([`ServiceError::IllegalMove`])
    /// for a move that is not legal in its position, INVALID_ARGUMENT
    /// ([`ServiceError::BadField`]) for text that is not a move or fits
    /// more than one legal move (ambiguous SAN).
    pub fn mv(field: &str, e: MoveError) -> ServiceError {
        let (field, message) = (field.to_string(), e.to_string());
        if e.is_illegal() {
            ServiceError::IllegalMove { field, message }
        } else {
            ServiceError::BadField { field, message }
        }
    }

    /// [`ServiceError::OutOfRange`] for `field` if `value` is above `max`.
    pub fn at_most(field: &str, value: u64, max: u64) -> Result<(), ServiceError> {
        if value > max { Err(ServiceError::OutOfRange { field: field.into(), value, max }) } else { Ok(()) }
    }

    /// The gRPC code of this error.
    pub fn code(&self) -> Code {
        match self {
            ServiceError::BadField { .. } => Code::InvalidArgument,
            ServiceError::IllegalMove { .. } | ServiceError::Contradiction { .. } | ServiceError::GameOver(_) => {
                Code::FailedPrecondition
            }
            ServiceError::OutOfRange { .. } => Code::OutOfRange,
            ServiceError::Busy(_) | ServiceError::ClientBusy(_) => Code::ResourceExhausted,
            ServiceError::Idle(_) => Code::DeadlineExceeded,
            ServiceError::LimitReached { .. } => Code::OutOfRange,
            ServiceError::ShuttingDown => Code::Unavailable,
            ServiceError::Deadline => Code::DeadlineExceeded,
            ServiceError::Cancelled => Code::Cancelled,
            ServiceError::Internal(_) => Code::Internal,
            ServiceError::Client(s) => s.code(),
        }
    }
}

/// The canonical name of a gRPC status code (`INVALID_ARGUMENT`), as
/// written in `PerftBatchResponse.error_code` and by every gRPC implementation.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// The longest run of non-blank characters an error message echoes whole.
const ECHO_MAX: usize = 80;
/// What is kept of a longer run.
const ECHO_KEEP: usize = 64;

/// `text` with every run of non-blank characters longer than 80 characters
/// (a client's field echoed back: a variant name, a move, a FEN field) cut
/// to its first 64 characters and `…`, so that an error about a huge field
/// stays small enough for the status header.
pub fn clip(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(1024));
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if word.chars().count() > ECHO_MAX {
            out.extend(word.chars().take(ECHO_KEEP));
            out.push('…');
        } else {
            out.push_str(word);
        }
    }
    out
}

impl From<ServiceError> for Status {
    fn from(e: ServiceError) -> Status {
        let code = e.code();
        let msg = clip(&e.to_string());
        match &e {
            ServiceError::BadField { field, message } | ServiceError::IllegalMove { field, message } => {
                let message = &clip(message);
                let mut d = ErrorDetails::with_bad_request_violation(field.clone(), message.clone());
                if code == Code::FailedPrecondition {
                    d = ErrorDetails::with_precondition_failure_violation(
                        "ILLEGAL_MOVE",
                        field.clone(),
                        message.clone(),
                    );
                }
                Status::with_error_details(code, msg, d)
            }
            ServiceError::Contradiction { field, message } => Status::with_error_details(
                code,
                msg.clone(),
                ErrorDetails::with_precondition_failure_violation("GAME_DECIDED", field.clone(), clip(message)),
            ),
            ServiceError::OutOfRange { field, .. } => Status::with_error_details(
                code,
                msg.clone(),
                ErrorDetails::with_bad_request_violation(field.clone(), msg),
            ),
            ServiceError::Busy(_) | ServiceError::ClientBusy(_) => Status::with_error_details(
                code,
                msg,
                ErrorDetails::with_retry_info(Some(std::time::Duration::from_millis(200))),
            ),
            _ => Status::new(code, msg),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_echoes_are_clipped() {
        let huge = "x".repeat(1 << 20);
        let e =
            ServiceError::BadField { field: "position.variant".into(), message: format!("unknown variant '{huge}'") };
        let s = Status::from(e);
        assert!(s.message().len() < 200, "{}", s.message().len());
        assert!(s.message().ends_with('…'), "{}", s.message());
        assert!(s.details().len() < 400);
        // Ordinary messages (a 10x10 FEN board is 66 characters) stay whole.
        let fen = "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1";
        assert_eq!(clip(fen), fen);
        assert_eq!(clip("é".repeat(100).as_str()).chars().count(), 65);
    }
}
