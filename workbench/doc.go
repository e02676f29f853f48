// Package workbench is the labelling workbench of `bench label` (issue 21;
// docs/labelling.md): a web app served on this machine, over a bench run
// config's corpus and its JSONL span labels, in which a person writes a
// question, finds its answer with the config's own retrievers, selects the
// passage with the mouse and saves checked labels.
//
// # The session
//
// New opens a session: it reads the labels for editing (labels.ReadFile:
// rows not edited are written back byte for byte), locks them (LockPath,
// flock(2); a second session is read-only), checks them with labels.Check
// (the rules bench run applies), reads the last run of the config when
// given (labels.ReadPoolRuns and misses.jsonl, for the missed and pool
// lists) and builds, in the background, each of the config's cells'
// retrievers: a first stage (bm25, dense) once, through its kind's own Run
// over the config's cache folder, so indexes a bench run cached are read
// back; a staged kind (hybrid, rerank) per question on its inputs' runs, a
// tuned one at its untuned default. A retriever whose model is missing, or
// that queries a cluster (kinds.Dialer), is not searched and says why.
//
// Every edit is applied to the labels in memory and checked at once; one
// that brings a problem is undone and refused with the check's problems.
// Save writes the file atomically (fileutil.WriteStream: the previous file
// stays whole until the new one is), then its anchor record when it checks
// clean. Accepting the sure repair of a stale label writes what bench
// labels check --fix writes: labels.Fix is given the check holding that
// problem alone, and the line it writes replaces the row.
//
// # HTTP
//
// Handler serves the page (embedded: assets/index.html, app.js, app.css;
// no network) and a JSON API. Every request must carry the session token
// (NewToken: 32 random bytes in hex) in the X-Bench-Token header, or as
// ?token= on a GET — else 403. State-changing requests are POST with a
// JSON body (GET 405, another body 415). Documents are looked up by id,
// never joined into a path (an unknown id is 404). Responses are never
// cached or framed, and the Content-Security-Policy allows no script but
// the page's own; the page puts every corpus and label text into the DOM as
// text, never as markup.
//
//	GET  /                      the page
//	GET  /static/{file}         app.js, app.css
//	GET  /api/state             labels, counts, cells and their states, read-only reason
//	GET  /api/list?name=        all, unlabelled, stale, missed, pool
//	GET  /api/question?id=      a question with its passages and problems
//	GET  /api/doc?id=           a document's text
//	GET  /api/docs              the documents
//	GET  /api/search?q=         the retrievers' pooled top results
//	GET  /api/find?q=           plain text search (white space, quotes, dashes, case folded)
//	POST /api/question          edit or add a question (its passages by index or by offsets)
//	POST /api/delete            delete a question
//	POST /api/judge             judge a pooled passage (grade ≥ 1 relevant, 0 not)
//	POST /api/repair            accept a stale label's sure repair
//	POST /api/save              write the labels
package workbench
