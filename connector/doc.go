// Package connector is the Mooncake-store KV connector: the scheduler half
// that decides which blocks to offer from the pool, load and save; the
// worker half that moves pages between GPU pages and the pool; and the
// configuration both read, from the Mooncake client JSON
// (LoadMooncakeConfig) and the TensorRT-LLM extra LLM-API YAML
// (LoadLLMConfig).
package connector
