package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateFields(t *testing.T) {
	for _, tc := range []struct {
		err    error
		fields string
	}{
		{Conn{}.Validate(), "urls"},
		{Conn{URLs: []string{"http://u:hunter2@h:1", "ftp://h"}, UserEnv: "U", Timeout: -1, Concurrency: -1, Retries: -1, Backoff: -1}.Validate(),
			"urls[0] urls[1] password_env timeout concurrency retries backoff"},
		{Conn{URLs: []string{"http://h:1"}, UserEnv: "U", PasswordEnv: "P", APIKeyEnv: "K"}.Validate(), "api_key_env"},
		{Managed{Shards: -1, Replicas: -1, BulkDocs: -1, Prefix: "_x", BM25: &BM25{K1: -1, B: 2}, HNSW: &HNSW{}, Analysis: json.RawMessage("{")}.Validate(),
			"shards replicas bulk_docs prefix k1 b hnsw_m ef_construction analysis"},
		{QueryOptions{Kind: KindHybrid, K: -1, NumCandidates: -1}.Validate(), "k num_candidates bm25_boost knn_boost"},
		{QueryOptions{}.Validate(), "query"},
		{Existing{Template: `{"query": {"match_all": {}}}`, Filters: []json.RawMessage{json.RawMessage("[]")}}.Validate(), "index id_field template filters[0]"},
		{Existing{Index: "a/b", IDField: "id", Template: `{"query": "{{query}}"`}.Validate(), "index template"},
	} {
		var got []string
		for _, fe := range FieldErrors(tc.err) {
			got = append(got, fe.Field)
		}
		if strings.Join(got, " ") != tc.fields {
			t.Errorf("fields %v, want %s (%v)", got, tc.fields, tc.err)
		}
		if tc.err != nil && strings.Contains(tc.err.Error(), "hunter2") {
			t.Errorf("error shows the password: %v", tc.err)
		}
	}
	if err := (Conn{URLs: []string{"https://h:9200/"}, UserEnv: "U", PasswordEnv: "P"}).Validate(); err != nil {
		t.Errorf("valid conn: %v", err)
	}
	if err := (Existing{Index: "i", IDField: "_id", Template: `{"knn": {"query_vector": "{{vector}}", "k": "{{k}}"}}`}).Validate(); err != nil {
		t.Errorf("valid existing: %v", err)
	}
}
