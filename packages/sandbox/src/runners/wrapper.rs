
// Appended after the user's code, so the user's line numbers stay as written. It reads the input
// object from stdin, calls main_fn once and writes one JSON result to fd 3, so nothing the user
// prints on stdout can forge or break it.
fn main() {
    use std::io::{Read, Write};
    use std::os::unix::io::FromRawFd;
    use std::sync::{Arc, Mutex};

    fn finish(payload: String, status: i32) -> ! {
        let _ = std::io::stdout().flush();
        // SAFETY: fd 3 is the result pipe the sandbox host opened for this process; nothing else owns it.
        let mut result = unsafe { std::fs::File::from_raw_fd(3) };
        let _ = result.write_all(payload.as_bytes());
        std::process::exit(status);
    }
    fn fail(kind: &str, kind_type: &str, message: String, line: Option<u32>) -> ! {
        let mut error = serde_json::Map::new();
        error.insert("kind".into(), serde_json::Value::from(kind));
        error.insert("type".into(), serde_json::Value::from(kind_type));
        error.insert("message".into(), serde_json::Value::from(message));
        if let Some(line) = line {
            error.insert("line".into(), serde_json::Value::from(line));
        }
        let mut result = serde_json::Map::new();
        result.insert("ok".into(), serde_json::Value::from(false));
        result.insert("error".into(), serde_json::Value::Object(error));
        finish(serde_json::Value::Object(result).to_string(), 1);
    }

    // Readiness: the host sends the input only after this byte (see SandboxedProcess.run).
    {
        // SAFETY: fd 3 is the result pipe; ManuallyDrop keeps it open for `finish`.
        let mut ready = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(3) });
        let _ = ready.write_all(b"\n");
    }
    let mut raw = String::new();
    if let Err(error) = std::io::stdin().read_to_string(&mut raw) {
        fail("invalid_input", "io", error.to_string(), None);
    }
    let inputs: serde_json::Value = match serde_json::from_str(&raw) {
        Ok(value @ serde_json::Value::Object(_)) => value,
        Ok(_) => fail("invalid_input", "json", "the input must be a JSON object".into(), None),
        Err(error) => fail("invalid_input", "json", error.to_string(), None),
    };

    let panic_line: Arc<Mutex<Option<u32>>> = Arc::new(Mutex::new(None));
    let hook_line = Arc::clone(&panic_line);
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Some(location) = info.location() {
            if location.file().ends_with("main.rs") {
                if let Ok(mut line) = hook_line.lock() {
                    *line = Some(location.line());
                }
            }
        }
        default_hook(info);
    }));

    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| main_fn(inputs)));
    match outcome {
        Ok(Ok(output @ serde_json::Value::Object(_))) => {
            finish(format!("{{\"ok\":true,\"output\":{}}}", output), 0);
        }
        Ok(Ok(other)) => {
            let got = match other {
                serde_json::Value::Null => "null",
                serde_json::Value::Bool(_) => "bool",
                serde_json::Value::Number(_) => "number",
                serde_json::Value::String(_) => "string",
                serde_json::Value::Array(_) => "array",
                serde_json::Value::Object(_) => "object",
            };
            fail("invalid_output", got, format!("main_fn must return a JSON object, got {}", got), None);
        }
        Ok(Err(message)) => fail("runtime", "error", message, None),
        Err(payload) => {
            let message = if let Some(text) = payload.downcast_ref::<&str>() {
                text.to_string()
            } else if let Some(text) = payload.downcast_ref::<String>() {
                text.clone()
            } else {
                "panic".to_string()
            };
            let line = panic_line.lock().ok().and_then(|line| *line);
            fail("runtime", "panic", message, line);
        }
    }
}
