// Package workload reads request files and traces and synthesises
// workloads for kvctl: kvctl request files (ReadRequests, LoadRequests;
// RequestWriter writes them and Recorded records the requests a Source
// hands out), Mooncake FAST'25 traces (ReadTrace) with token synthesis
// from their hash-id chains (Synthesizer), one streaming Source over
// either (Open, with format auto, kvctl or mooncake), synthetic
// multi-turn chat workloads (ParseConversations) and a trace's ideal
// prefix reuse (IdealPrefixReuse).
package workload
