// The programs an n8n import writes into Code nodes: an n8n Code node's own code inside a `main`
// that gives it n8n's names for its data ($input, $json, items, $('Node')… and their Python `_`
// forms), a Set node's assignments, and the placeholder of a node with no counterpart. Each
// answers `{ json, items }`: `json` the first item's data, which later nodes read.

/** Why a piece of n8n code cannot run here, or undefined when it can. */
export function unsupportedCode(code: string, language: "javascript" | "python"): string | undefined {
  const checks: [RegExp, string][] =
    language === "javascript"
      ? [
          [
            /\$(execution|workflow|env|vars|secrets|prevNode|evaluateExpression|getWorkflowStaticData|jmespath|fromAI|binary)\b/,
            "it uses $$1, which has no counterpart here",
          ],
          [
            /\$(now|today)\b|\bDateTime\b/,
            "it uses Luxon dates ($now, $today, DateTime), which are not available here",
          ],
          [
            /\bthis\.(helpers|getNode|getWorkflowStaticData|getInputData)\b/,
            "it uses this.$1, n8n's node helpers",
          ],
          [/\brequire\s*\(/, "it requires n8n's modules"],
          [/\.binary\b/, "it reads binary data, which items here do not carry"],
          [/\$\(\s*[^'"`\s]/, "it names a node with a computed name ($(…) with no quoted name)"],
          [
            /\.(pairedItem|itemMatching)\(\s*[^0\s)]/,
            "it follows paired items, which have no counterpart here",
          ],
        ]
      : [
          [
            /\b_(execution|workflow|env|vars|secrets|prevNode|getWorkflowStaticData|jmespath)\b/,
            "it uses _$1, which has no counterpart here",
          ],
          [/\b_(now|today)\b/, "it uses Luxon dates (_now, _today), which are not available here"],
          [/\bimport\s+js\b|\bfrom\s+js\s+import\b|\bpyodide\b/, "it uses Pyodide's JavaScript bridge"],
          [/\.binary\b/, "it reads binary data, which items here do not carry"],
          [/(^|[^\w])_\(\s*[^'"\s]/, "it names a node with a computed name (_(…) with no quoted name)"],
        ];
  for (const [pattern, reason] of checks) {
    const found = pattern.exec(code);
    if (found) return reason.replace("$1", found[1] ?? "");
  }
  return undefined;
}

/**
 * The n8n node names a piece of code reads through `$('Name')`, `$node["Name"]`, `$items("Name")`
 * (or Python's `_('Name')`, `_node["Name"]`).
 *
 * @example namedNodes("$('Webhook').first().json", "javascript") // ["Webhook"]
 */
export function namedNodes(code: string, language: "javascript" | "python"): string[] {
  const patterns =
    language === "javascript"
      ? [
          /\$\(\s*(['"`])((?:(?!\1).)+)\1\s*\)/g,
          /\$node\[\s*(['"])((?:(?!\1).)+)\1\s*\]/g,
          /\$items\(\s*(['"])((?:(?!\1).)+)\1/g,
        ]
      : [/(?:^|[^\w])_\(\s*(['"])((?:(?!\1).)+)\1\s*\)/g, /\b_node\[\s*(['"])((?:(?!\1).)+)\1\s*\]/g];
  const names = new Set<string>();
  for (const pattern of patterns)
    for (const found of code.matchAll(pattern)) if (found[2]) names.add(found[2]);
  for (const found of code.matchAll(/\$node\.([A-Za-z_$][\w$]*)/g)) if (found[1]) names.add(found[1]);
  return [...names];
}

const comment = (text: string, prefix: string) =>
  text
    .split("\n")
    .map((line) => `${prefix} ${line}`.trimEnd())
    .join("\n");

/**
 * An n8n Code node's JavaScript inside this builder's entry point. The input item is `inputs.json`,
 * the items of nodes it names are `inputs.n8n_nodes`; it runs once, on that one item, in either of
 * n8n's modes.
 *
 * @example const code = wrapJavaScript(userCode, "Code");
 */
export function wrapJavaScript(code: string, name: string): string {
  return `${comment(`Imported from the n8n Code node "${name}": its code runs below on one item, with n8n's names for its data.`, "//")}
async function main(inputs) {
  const __json = inputs.json ?? {};
  const __nodes = inputs.n8n_nodes ?? {};
  const __items = (json) => ({
    item: { json },
    first: () => ({ json }),
    last: () => ({ json }),
    all: () => [{ json }],
    itemMatching: () => ({ json }),
  });
  const $input = __items(__json);
  const items = $input.all();
  const item = items[0];
  const $json = item.json;
  const $ = (name) => {
    if (!(name in __nodes)) throw new Error(\`The node "\${name}" is not upstream of this one.\`);
    return __items(__nodes[name]);
  };
  const $node = Object.fromEntries(Object.entries(__nodes).map(([key, json]) => [key, { json }]));
  const $items = (name) => (name === undefined ? items : $(name).all());
  const $runIndex = 0;
  const $itemIndex = 0;
  const __result = await (async () => {
${code}
  })();
  const __list = (Array.isArray(__result) ? __result : [__result])
    .filter((entry) => entry !== undefined && entry !== null)
    .map((entry) => (typeof entry === "object" && "json" in entry ? entry.json : entry));
  return { json: __list[0] ?? {}, items: __list };
}
`;
}

/**
 * An n8n Code node's Python inside this builder's entry point, as `wrapJavaScript` does: `_input`,
 * `_json`, `_items`, `_item` and `_('Node')`, items readable as `item.json.field` and `item["json"]`.
 *
 * @example const code = wrapPython(userCode, "Code");
 */
export function wrapPython(code: string, name: string): string {
  const body = code
    .split("\n")
    .map((line) => (line.trim() === "" ? "" : `        ${line}`))
    .join("\n");
  return `${comment(`Imported from the n8n Code node "${name}": its code runs below on one item, with n8n's names for its data.`, "#")}
class _N8nDict(dict):
    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError as error:
            raise AttributeError(key) from error

    def __setattr__(self, key, value):
        self[key] = value

    def to_py(self):
        return self


def _n8n_wrap(value):
    if isinstance(value, dict):
        return _N8nDict({key: _n8n_wrap(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_n8n_wrap(item) for item in value]
    return value


class _N8nItems:
    def __init__(self, json):
        self._items = [_N8nDict(json=_n8n_wrap(json if json is not None else {}))]

    def all(self):
        return self._items

    def first(self):
        return self._items[0]

    def last(self):
        return self._items[-1]

    @property
    def item(self):
        return self._items[0]


def main(inputs):
    _input = _N8nItems(inputs.get("json"))
    _n8n_nodes = {key: _N8nItems(value) for key, value in (inputs.get("n8n_nodes") or {}).items()}

    def _(name):
        if name not in _n8n_nodes:
            raise Exception(f'The node "{name}" is not upstream of this one.')
        return _n8n_nodes[name]

    _node = {key: items.first() for key, items in _n8n_nodes.items()}
    _items = _input.all()
    _item = _items[0]
    _json = _item.json
    _runIndex = 0

    def _n8n_code():
${body || "        pass"}

    result = _n8n_code()
    entries = result if isinstance(result, list) else [result]
    found = []
    for entry in entries:
        if entry is None:
            continue
        if isinstance(entry, dict) and "json" in entry:
            entry = entry["json"]
        found.append(entry)
    return {"json": found[0] if found else {}, "items": found}
`;
}

/** One field a Set node assigns: its name (dots make nested fields), value template and n8n type. */
export interface SetField {
  name: string;
  value: unknown;
  type: string;
}

/**
 * The JavaScript of an n8n Set ("Edit Fields") node: its fields over (or instead of) the input item.
 *
 * @example const code = setNodeCode("Set fields");
 */
export function setNodeCode(name: string): string {
  return `${comment(`Imported from the n8n Set node "${name}": it sets the fields listed in its inputs.`, "//")}
function main(inputs) {
  const json = inputs.keep_input ? JSON.parse(JSON.stringify(inputs.json ?? {})) : {};
  for (const [path, value, type] of inputs.fields) {
    const keys = inputs.dot_notation ? path.split(".") : [path];
    let holder = json;
    for (const key of keys.slice(0, -1)) {
      if (typeof holder[key] !== "object" || holder[key] === null) holder[key] = {};
      holder = holder[key];
    }
    holder[keys[keys.length - 1]] = convert(value, type);
  }
  return { json, items: [json] };
}

function convert(value, type) {
  if (value === null || value === undefined) return value ?? null;
  if (type === "number") return typeof value === "number" ? value : Number(value);
  if (type === "boolean") return value === true || value === 1 || String(value).toLowerCase() === "true";
  if (type === "string") return typeof value === "object" ? JSON.stringify(value) : String(value);
  if ((type === "array" || type === "object") && typeof value === "string") {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}
`;
}

/**
 * The Code node standing for an n8n node with no counterpart: it fails the run, saying what to
 * replace it with, until someone does.
 *
 * @example const code = placeholderCode("Send Slack", "n8n-nodes-base.slack", "no counterpart");
 */
export function placeholderCode(name: string, type: string, reason: string): string {
  const message = JSON.stringify(
    `Not imported from n8n: the node "${name}" (${type}); ${reason}. Replace this node.`,
  );
  return `${comment(`PLACEHOLDER. The n8n node "${name}" (${type}) was not imported: ${reason}.\nReplace this node with one that does its work; until then it fails the run.`, "//")}
function main(inputs) {
  throw new Error(${message});
}
`;
}
