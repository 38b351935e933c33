#!/usr/bin/env python3
"""A scripted OpenAI-compatible server for tests of the LLM agent.

    scripted-llm-server.py [--timeout S] ANSWERS.json PORT_FILE -- COMMAND...

It listens on 127.0.0.1 (a free port, written to PORT_FILE), answers each
`POST .../chat/completions` with the next entry of ANSWERS.json and every GET
(the model listing the client checks at start) with one model, then runs
COMMAND with FS_LLM_BASE_URL pointing at it and exits with its status. Once
the list is used up it answers 503. It stops by itself when COMMAND ends, or
after S seconds (default 60), killing COMMAND.

ANSWERS.json is a list. An entry is the answer's text, or an object
{"text": PROSE, "cuda": FILE} whose answer is PROSE followed by FILE (relative
to ANSWERS.json) in one ```cuda block, so the kernels of a scenario can be
kept, read and compiled as .cu files. Other keys are for whoever reads the
list (scripts/gpu/llm-loop.sh reads "expect") and are ignored here.

Standard library only: it runs wherever the tests or the GPU scripts do.
"""
import http.server
import json
import os
import subprocess
import sys
import threading


def load_answers(path):
    base = os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        entries = json.load(f)
    answers = []
    for entry in entries:
        if isinstance(entry, str):
            answers.append(entry)
            continue
        with open(os.path.join(base, entry["cuda"])) as f:
            code = f.read()
        answers.append("%s\n\n```cuda\n%s```\n" % (entry.get("text", ""), code))
    return answers


def make_handler(answers, served):
    class Handler(http.server.BaseHTTPRequestHandler):
        def reply(self, body):
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.reply({"object": "list", "data": [{"id": "test"}]})

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if len(served) >= len(answers):
                self.send_response(503)
                self.end_headers()
                return
            text = answers[len(served)]
            served.append(text)
            self.reply({"id": "c%d" % len(served), "object": "chat.completion",
                        "model": "test",
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant",
                                                 "content": text}}]})

        def log_message(self, *args):
            pass

    return Handler


def main(argv):
    if "--" not in argv:
        sys.exit("usage: scripted-llm-server.py [--timeout S] ANSWERS.json "
                 "PORT_FILE -- COMMAND...")
    split = argv.index("--")
    args, command = argv[1:split], argv[split + 1:]
    timeout = 60.0
    if len(args) >= 2 and args[0] == "--timeout":
        timeout = float(args[1])
        args = args[2:]
    if len(args) != 2 or not command:
        sys.exit("usage: scripted-llm-server.py [--timeout S] ANSWERS.json "
                 "PORT_FILE -- COMMAND...")
    answers = load_answers(args[0])
    served = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             make_handler(answers, served))
    port = server.server_address[1]
    with open(args[1], "w") as f:
        f.write(str(port))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = dict(os.environ, FS_LLM_BASE_URL="http://127.0.0.1:%d" % port)
    try:
        return subprocess.run(command, env=env, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        sys.exit("scripted-llm-server: the command ran past %g s" % timeout)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
