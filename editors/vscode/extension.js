// Starts `rulepress lsp` for the YAML files of rulepress games. Plain JavaScript: nothing to
// compile; `npm install` fetches the one dependency (the LSP client VS Code extensions use).
"use strict";
const path = require("path");
const fs = require("fs");
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

// The server command: the setting, else the project's own .venv, else `rulepress` on PATH.
function serverCommand() {
  const configured = vscode.workspace.getConfiguration("rulepress").get("command");
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  if (folder && Array.isArray(configured) && configured[0] === "rulepress") {
    const local = path.join(folder.uri.fsPath, ".venv", "bin", "rulepress");
    if (fs.existsSync(local)) return { command: local, args: configured.slice(1), cwd: folder.uri.fsPath };
  }
  const [command, ...args] = Array.isArray(configured) && configured.length ? configured : ["rulepress", "lsp"];
  return { command, args, cwd: folder ? folder.uri.fsPath : undefined };
}

function activate(context) {
  const { command, args, cwd } = serverCommand();
  const run = { command, args, options: { cwd } };
  client = new LanguageClient("rulepress", "rulepress", { run, debug: run }, {
    documentSelector: [{ scheme: "file", language: "yaml" }],
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
