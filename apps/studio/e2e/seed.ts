/**
 * The smallest workflow with a Code node (Python, answers `{"result": "ok"}`): start → `codeId` → end.
 * For the screens that open the code editor (browser tests, the studio bench).
 *
 * @example await builder.request("/api/workflows", { method: "POST", cookie, json: { name: "Shout", graph: codeWorkflowGraph("code_1") } });
 */
export function codeWorkflowGraph(codeId = "code") {
  return {
    nodes: [
      { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
      {
        id: codeId,
        type: "code",
        position: { x: 280, y: 0 },
        data: {
          language: "python",
          code: 'def main(inputs):\n    return {"result": "ok"}\n',
          inputs: [],
          outputs: [{ name: "result", type: "string" }],
        },
      },
      { id: "end", type: "end", position: { x: 560, y: 0 }, data: { outputs: [] } },
    ],
    edges: [
      { id: "a", source: "start", target: codeId },
      { id: "b", source: codeId, target: "end" },
    ],
  };
}
