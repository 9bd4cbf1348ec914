#!/usr/bin/env python3
"""greet: a CLI in Python that toolwire serves over MCP — toolwire mcp serve --exec "python3 greet.py".

What makes it bridgeable: `greet --format json manifest` prints its contract (with the etag), every run prints
one JSON envelope and exits with the code the envelope carries, a bad flag is exit 2, `<command> --help` is help.
"""
import hashlib, json, sys, time

def code(name, description):
    return {"name": name, "description": description, "retryable": False, "side_effects": "none"}

CODES = {"0": code("SUCCESS", "Done"), "2": code("ARG_ERROR", "A flag is missing or unknown; nothing was done")}
COMMANDS = {
    "hello": {"description": "Say hello to someone", "danger_level": "safe", "required_scopes": [],
              "flags": {"name": {"type": "string", "required": True, "description": "Who to greet"}}, "exit_codes": CODES},
    "manifest": {"description": "Print every command's contract as one JSON document", "danger_level": "safe",
                 "required_scopes": [], "flags": {}, "exit_codes": CODES},
}

def manifest():  # the etag is the sha256 of the canonical JSON (keys sorted, no spaces) of the other three members
    body = {"schema_version": "3.17", "framework_version": "1.0.0", "commands": COMMANDS}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {**body, "etag": "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()}

def run(args):  # toolwire calls `greet --format json <command> --flag=value … --`: JSON is all this CLI speaks
    args = [arg for arg in args if arg not in ("--format", "json", "--")]
    if args == ["--version"]:
        return {"name": "greet", "version": "1.0.0", "description": "Greets people"}, None
    if not args or args[0] not in COMMANDS:
        return None, f"unknown command: {' '.join(args) or '(none)'}"
    flags = dict(arg[2:].split("=", 1) for arg in args[1:] if arg.startswith("--") and "=" in arg)
    other = [arg for arg in args[1:] if not (arg.startswith("--") and "=" in arg)]
    if other or set(flags) != set(COMMANDS[args[0]]["flags"]):
        return None, f"{args[0]} takes {' '.join(f'--{name}=…' for name in COMMANDS[args[0]]['flags']) or 'no flags'}"
    return (manifest() if args[0] == "manifest" else {"greeting": f"hello {flags['name']}"}), None

def main(args, started=time.monotonic()):
    if len(args) == 2 and args[0] in COMMANDS and args[1] == "--help":
        return print(f"greet {args[0]}: {COMMANDS[args[0]]['description']}") or 0
    data, problem = run(args)
    error = problem and {"code": "ARG_ERROR", "message": problem, "retryable": False}
    meta = {"exit_code": 2 if problem else 0, "duration_ms": int((time.monotonic() - started) * 1000)}
    print(json.dumps({"ok": not problem, "data": data, "error": error, "warnings": [], "meta": meta}))
    return meta["exit_code"]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
