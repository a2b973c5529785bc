"""A UCI engine in a child process, driven line by line (for the bench
scripts: search_nps.py, stop_latency.py, wac.py, teacher_agreement.py)."""
import subprocess


class UciProcess:
    """`uci`/`isready` done on start; `variant`, `threads`, `hash_mb` set."""

    def __init__(self, path, variant="chess", threads=1, hash_mb=64):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.until("uciok")
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send(f"setoption name Threads value {threads}")
        self.send(f"setoption name Hash value {hash_mb}")
        self.send("isready")
        self.until("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, prefix):
        """The lines read up to and including the first starting with `prefix`."""
        lines = []
        for line in self.p.stdout:
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines
        raise RuntimeError(f"the engine ended before {prefix}")

    def position(self, fen):
        self.send("position startpos" if fen == "startpos" else f"position fen {fen}")

    def quit(self):
        self.send("quit")
        self.p.wait(timeout=10)
