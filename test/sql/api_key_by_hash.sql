-- api_key_by_hash: written by `npm run sql:snapshots` from the code; do not edit.
-- Parameters: $1 keyHash
select id, vendor_id, key_hash, scopes, revoked_at is not null as revoked,
                    (extract(epoch from last_used_at) * 1000)::bigint::text as last_used_ms
             from api_keys where key_hash = $1::text limit 1
