package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/codemode-go/codemode/durable/store"
)

const snippetColumns = `name, description, code, input_schema, connectors, saved_at`

// SaveSnippet implements store.Store.
func (s *fileStore) SaveSnippet(ctx context.Context, runtime string, sn *store.Snippet) error {
	connectors, err := jsonText(nonNil(sn.Connectors))
	if err != nil {
		return fmt.Errorf("sqlite: saving snippet %s: %w", sn.Name, err)
	}
	_, err = s.exec(ctx, `INSERT INTO snippets (runtime, `+snippetColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (runtime, name) DO UPDATE SET description = excluded.description, code = excluded.code,
		input_schema = excluded.input_schema, connectors = excluded.connectors, saved_at = excluded.saved_at`,
		runtime, sn.Name, sn.Description, sn.Code, nullable(sn.InputSchema), connectors, sn.SavedAt)
	if err != nil {
		return fmt.Errorf("sqlite: saving snippet %s: %w", sn.Name, err)
	}
	return nil
}

func scanSnippet(row scanner) (*store.Snippet, error) {
	var sn store.Snippet
	var input sql.NullString
	var connectors string
	if err := row.Scan(&sn.Name, &sn.Description, &sn.Code, &input, &connectors, &sn.SavedAt); err != nil {
		return nil, err
	}
	if input.Valid {
		sn.InputSchema = json.RawMessage(input.String)
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
func (s *fileStore) Snippet(ctx context.Context, runtime, name string) (*store.Snippet, bool, error) {
	sn, err := scanSnippet(s.queryRow(ctx, `SELECT `+snippetColumns+` FROM snippets WHERE runtime = ? AND name = ?`, runtime, name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: reading snippet %s: %w", name, err)
	}
	return sn, true, nil
}

// Snippets implements store.Store.
func (s *fileStore) Snippets(ctx context.Context, runtime string) ([]store.Snippet, error) {
	rows, err := s.query(ctx, `SELECT `+snippetColumns+` FROM snippets WHERE runtime = ? ORDER BY name`, runtime)
	if err != nil {
		return nil, fmt.Errorf("sqlite: listing snippets: %w", err)
	}
	defer rows.Close()
	list := []store.Snippet{}
	for rows.Next() {
		sn, err := scanSnippet(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: listing snippets: %w", err)
		}
		list = append(list, *sn)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: listing snippets: %w", err)
	}
	return list, nil
}

// DeleteSnippet implements store.Store.
func (s *fileStore) DeleteSnippet(ctx context.Context, runtime, name string) (bool, error) {
	res, err := s.exec(ctx, `DELETE FROM snippets WHERE runtime = ? AND name = ?`, runtime, name)
	if err != nil {
		return false, fmt.Errorf("sqlite: deleting snippet %s: %w", name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: deleting snippet %s: %w", name, err)
	}
	return n == 1, nil
}
