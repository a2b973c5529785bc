//! The JSON-lines results file of job runs (`--results FILE`), shared by the
//! local and the remote `epd` and the remote split `perft`: each finished
//! job is appended as one line, and a rerun with the same file skips the
//! jobs already in it (resume).

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// A finished job, as stored in the results file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct Done {
    pub id: String,
    pub depth: u32,
    pub expected: u64,
    pub actual: u64,
    pub pass: bool,
    pub seconds: f64,
    pub replica: String,
    /// Set when the job failed for good (bad input the server rejected).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
    /// Set when the server checked nothing (`PerftBatchResponse.skipped`): not
    /// a pass. Absent from records written before the field existed, and
    /// written only when set, so results files stay readable both ways.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
}

impl Done {
    /// The job as a `--json` line: the results-file record with
    /// `"type":"job"`, and `"resumed":true` when it came from the file.
    pub(crate) fn to_json(&self, resumed: bool) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("type".into(), "job".into());
            o.insert("resumed".into(), resumed.into());
        }
        v
    }
}

/// The results file: what is already done, and an appender.
pub(crate) struct Results {
    pub done: HashMap<String, Done>,
    file: Option<std::fs::File>,
}

impl Results {
    pub(crate) fn open(path: Option<&Path>) -> Result<Results> {
        let mut done = HashMap::new();
        let Some(path) = path else { return Ok(Results { done, file: None }) };
        let mut torn = false;
        if let Ok(text) = std::fs::read_to_string(path) {
            // An interrupted run may have left its last line without a newline:
            // end it, or the next record would be glued onto it.
            torn = !text.is_empty() && !text.ends_with('\n');
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                // A line cut short by an interruption is simply redone, and so
                // is a job the server skipped (it costs nothing to ask again).
                match serde_json::from_str::<Done>(line) {
                    Ok(d) if d.error.is_empty() && !d.skipped => {
                        done.insert(d.id.clone(), d);
                    }
                    Ok(_) => {}
                    Err(_) => eprintln!("{}:{}: unreadable result line, its job will be redone", path.display(), i + 1),
                }
            }
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open results file {}", path.display()))?;
        if torn {
            file.write_all(b"\n").with_context(|| format!("cannot write results file {}", path.display()))?;
        }
        Ok(Results { done, file: Some(file) })
    }

    /// The stored result of job `id`, if it was for the same depth and
    /// expected count (a file left by another version of the suite is not
    /// trusted).
    pub(crate) fn finished(&self, id: &str, depth: u32, expected: u64) -> Option<&Done> {
        self.done.get(id).filter(|d| d.depth == depth && d.expected == expected)
    }

    /// Appends a finished job to the file (if any).
    pub(crate) fn record(&mut self, d: &Done) {
        if let Some(f) = self.file.as_mut()
            && let Ok(mut line) = serde_json::to_string(d)
        {
            // One write per record, newline included, so that an
            // interruption cannot leave a complete record without its newline.
            line.push('\n');
            let _ = f.write_all(line.as_bytes());
            let _ = f.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Done;

    fn done(skipped: bool) -> Done {
        Done {
            id: "line1-d1".into(),
            depth: 1,
            expected: 20,
            actual: 0,
            pass: false,
            seconds: 0.5,
            replica: "http://127.0.0.1:50051".into(),
            error: String::new(),
            skipped,
        }
    }

    #[test]
    fn results_records_stay_compatible() {
        // A record written before `skipped` existed reads as not skipped.
        let old = r#"{"id":"line1-d1","depth":1,"expected":20,"actual":20,"pass":true,"seconds":0.1,"replica":"r"}"#;
        let d: Done = serde_json::from_str(old).unwrap();
        assert!(d.pass && !d.skipped);
        // `skipped` is written only when set, so older readers see the same
        // records as before for every job that was checked.
        let text = serde_json::to_string(&done(false)).unwrap();
        assert!(!text.contains("skipped"), "{text}");
        let text = serde_json::to_string(&done(true)).unwrap();
        assert!(text.contains(r#""skipped":true"#), "{text}");
        assert_eq!(serde_json::from_str::<Done>(&text).unwrap(), done(true));
    }
}
