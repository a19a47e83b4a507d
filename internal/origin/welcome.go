package origin

import "strings"

// welcomeRecipe is served before any recipe is loaded, like
// origin_simulator's default recipe: the welcome page, 200 after 100 ms.
// Unlike origin_simulator's it is not gzip-compressed, so any client can
// read it, and its examples name the address the simulator listens on
// (base, e.g. http://127.0.0.1:8080; a placeholder until it is known).
func welcomeRecipe(base string) string {
	if base == "" {
		base = "http://HOST:PORT"
	}
	return `{
  "route": "/*",
  "headers": {"cache-control": "public, max-age=30"},
  "stages": [{"at": 0, "status": 200, "latency": "100ms"}],
  "body": ` + strings.ReplaceAll(welcomeBodyJSON, "http://127.0.0.1:8080", base) + `
}`
}

const welcomeBodyJSON = `"<!doctype html>\n<html lang=\"en\">\n  <head>\n    <meta charset=\"utf-8\">\n    <title>loadlab origin - Default Content</title>\n  </head>\n  <body>\n    <main>\n      <h1>loadlab origin</h1>\n      <h2>A (flaky) upstream origin for load and stress tests, compatible with BBC Origin Simulator recipes.</h2>\n      <hr/>\n      <h5>Welcome!</h5>\n      <p>This is the default content, just to get you started. <mark>You should create and add your own recipe!</mark></p>\n      <p>Here's a basic example: it serves 50kb of random content continuously with a simulated latency of 100 milliseconds.</p>\n        <pre>\n          <code>\n            {\n              \"random_content\": \"50kb\",\n              \"headers\": {\n                 \"cache-control\": \"public, max-age=30\",\n                 \"content-encoding\": \"gzip\"\n              },\n              \"stages\": [{\"at\": 0, \"status\": 200, \"latency\": \"100ms\"}]\n            }</code>\n        </pre>\n      <p>To add a recipe run:\n        <pre><code>curl -X POST -d @my_recipe.json http://127.0.0.1:8080/_admin/add_recipe</code></pre>\n      </p>\n      <p>\n        To see the current recipe use:\n        <pre><code>curl http://127.0.0.1:8080/_admin/current_recipe</code></pre>\n      </p>\n      <p>Happy testing!</p>\n    </main>\n  </body>\n</html>\n"`
