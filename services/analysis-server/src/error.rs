//! Domain errors and their single mapping to gRPC statuses.

use menagerie_notation::MoveError;
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
    /// The server is shutting down.
    #[error("server is shutting down")]
    ShuttingDown,
    /// The client's deadline passed.
    #[error("deadline exceeded")]
    Deadline,
    /// The client cancelled.
    #[error("cancelled")]
    Cancelled,
    /// A bug (a panic in a worker), reported instead of crashing.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ServiceError {
    /// A bad FEN in `field`.
    pub fn fen(field: &str, e: FenError) -> ServiceError {
        ServiceError::BadField { field: field.to_string(), message: e.to_string() }
    }

    /// A bad or illegal move in `field`.
    pub fn mv(field: &str, e: MoveError) -> ServiceError {
        match e {
            MoveError::Illegal { .. } => ServiceError::IllegalMove { field: field.to_string(), message: e.to_string() },
            _ => ServiceError::BadField { field: field.to_string(), message: e.to_string() },
        }
    }

    /// The gRPC code of this error.
    pub fn code(&self) -> Code {
        match self {
            ServiceError::BadField { .. } => Code::InvalidArgument,
            ServiceError::IllegalMove { .. } | ServiceError::GameOver(_) => Code::FailedPrecondition,
            ServiceError::OutOfRange { .. } => Code::OutOfRange,
            ServiceError::Busy(_) => Code::ResourceExhausted,
            ServiceError::ShuttingDown => Code::Unavailable,
            ServiceError::Deadline => Code::DeadlineExceeded,
            ServiceError::Cancelled => Code::Cancelled,
            ServiceError::Internal(_) => Code::Internal,
        }
    }
}

/// The canonical name of a gRPC status code (`INVALID_ARGUMENT`), as
/// written in `PerftJobResult.error_code` and by every gRPC implementation.
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

impl From<ServiceError> for Status {
    fn from(e: ServiceError) -> Status {
        let code = e.code();
        let msg = e.to_string();
        match &e {
            ServiceError::BadField { field, message } | ServiceError::IllegalMove { field, message } => {
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
            ServiceError::OutOfRange { field, .. } => Status::with_error_details(
                code,
                msg.clone(),
                ErrorDetails::with_bad_request_violation(field.clone(), msg),
            ),
            ServiceError::Busy(_) => Status::with_error_details(
                code,
                msg,
                ErrorDetails::with_retry_info(Some(std::time::Duration::from_millis(200))),
            ),
            _ => Status::new(code, msg),
        }
    }
}
