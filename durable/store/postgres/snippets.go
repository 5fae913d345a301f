package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/codemode-go/codemode/durable/store"
)

const snippetColumns = `name, description, code, input_schema, connectors, saved_at`

// SaveSnippet implements store.Store.
func (s *pgStore) SaveSnippet(ctx context.Context, runtime string, sn *store.Snippet) error {
	if !key(runtime) || !key(sn.Name) {
		return fmt.Errorf("postgres: snippet name %q or runtime %q is not valid UTF-8 without NUL", sn.Name, runtime)
	}
	connectors, err := jsonText(nonNil(sn.Connectors))
	if err != nil {
		return fmt.Errorf("postgres: saving snippet %s: %w", sn.Name, err)
	}
	_, err = s.exec(ctx, `INSERT INTO codemode_snippets (runtime, `+snippetColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (runtime, name) DO UPDATE SET description = excluded.description, code = excluded.code,
		input_schema = excluded.input_schema, connectors = excluded.connectors, saved_at = excluded.saved_at`,
		runtime, sn.Name, []byte(sn.Description), []byte(sn.Code), nullable(sn.InputSchema), connectors, sn.SavedAt)
	if err != nil {
		return s.wrap("saving snippet "+sn.Name, err)
	}
	return nil
}

func scanSnippet(row pgx.Row) (*store.Snippet, error) {
	var sn store.Snippet
	var desc, code []byte
	var input *string
	var connectors string
	if err := row.Scan(&sn.Name, &desc, &code, &input, &connectors, &sn.SavedAt); err != nil {
		return nil, err
	}
	sn.Description, sn.Code = string(desc), string(code)
	if input != nil {
		sn.InputSchema = json.RawMessage(*input)
	}
	if err := json.Unmarshal([]byte(connectors), &sn.Connectors); err != nil {
		return nil, fmt.Errorf("decoding the connectors of snippet %s: %w", sn.Name, err)
	}
	if len(sn.Connectors) == 0 {
		sn.Connectors = nil
	}
	return &sn, nil
}

// Snippet implements store.Store.
func (s *pgStore) Snippet(ctx context.Context, runtime, name string) (*store.Snippet, bool, error) {
	if !key(runtime) || !key(name) {
		return nil, false, nil
	}
	var sn *store.Snippet
	err := s.readRow(ctx, func(row pgx.Row) (err error) {
		sn, err = scanSnippet(row)
		return err
	}, `SELECT `+snippetColumns+` FROM codemode_snippets WHERE runtime = $1 AND name = $2`, runtime, name)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.wrap("reading snippet "+name, err)
	}
	return sn, true, nil
}

// Snippets implements store.Store.
func (s *pgStore) Snippets(ctx context.Context, runtime string) ([]store.Snippet, error) {
	list := []store.Snippet{}
	if !key(runtime) {
		return list, nil
	}
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	err := retry(ctx, func(ctx context.Context) error {
		list = list[:0]
		return query(ctx, s.pool, func(rows pgx.Rows) error {
			sn, err := scanSnippet(rows)
			if err != nil {
				return err
			}
			list = append(list, *sn)
			return nil
		}, `SELECT `+snippetColumns+` FROM codemode_snippets WHERE runtime = $1 ORDER BY name COLLATE "C"`, runtime)
	})
	if err != nil {
		return nil, s.wrap("listing snippets", err)
	}
	return list, nil
}

// DeleteSnippet implements store.Store.
func (s *pgStore) DeleteSnippet(ctx context.Context, runtime, name string) (bool, error) {
	if !key(runtime) || !key(name) {
		return false, nil
	}
	tag, err := s.exec(ctx, `DELETE FROM codemode_snippets WHERE runtime = $1 AND name = $2`, runtime, name)
	if err != nil {
		return false, s.wrap("deleting snippet "+name, err)
	}
	return tag.RowsAffected() == 1, nil
}
