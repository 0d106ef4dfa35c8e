-- Transcript tables as made by the release before schema 3 (agentkit_schema version 2; 32-bit integer columns),
-- compiled by SQLAlchemy for postgresql from that release's transcripts/schema.py. Test fixture for tests/test_migrations.py.

CREATE TABLE agentkit_schema (
	id SERIAL NOT NULL, 
	version INTEGER NOT NULL, 
	PRIMARY KEY (id)
);

CREATE TABLE blobs (
	sha256 VARCHAR(64) NOT NULL, 
	media_type VARCHAR(100) NOT NULL, 
	data BYTEA NOT NULL, 
	size INTEGER NOT NULL, 
	PRIMARY KEY (sha256)
);

CREATE TABLE response_cache (
	key VARCHAR(64) NOT NULL, 
	model VARCHAR(200) NOT NULL, 
	answer TEXT NOT NULL, 
	input_tokens INTEGER NOT NULL, 
	output_tokens INTEGER NOT NULL, 
	cost_usd FLOAT NOT NULL, 
	created_at FLOAT NOT NULL, 
	PRIMARY KEY (key)
);

CREATE TABLE runs (
	id VARCHAR(32) NOT NULL, 
	created_at TIMESTAMP WITH TIME ZONE NOT NULL, 
	env VARCHAR(200) NOT NULL, 
	tasks JSON NOT NULL, 
	model VARCHAR(200) NOT NULL, 
	config JSON NOT NULL, 
	templates JSON NOT NULL, 
	templates_hash VARCHAR(64) NOT NULL, 
	agentkit_version VARCHAR(50) NOT NULL, 
	status VARCHAR(20) NOT NULL, 
	writer_host VARCHAR(255), 
	writer_pid INTEGER, 
	writer_start VARCHAR(40), 
	PRIMARY KEY (id)
);

CREATE INDEX ix_runs_created_at ON runs (created_at);

CREATE TABLE episodes (
	id VARCHAR(32) NOT NULL, 
	run_id VARCHAR(32) NOT NULL, 
	task VARCHAR(200) NOT NULL, 
	seed INTEGER NOT NULL, 
	trial INTEGER NOT NULL, 
	attempt INTEGER NOT NULL, 
	status VARCHAR(20) NOT NULL, 
	success BOOLEAN, 
	reward FLOAT, 
	end_reason VARCHAR(40), 
	scripts INTEGER, 
	turns INTEGER, 
	input_tokens INTEGER, 
	output_tokens INTEGER, 
	cost_usd FLOAT, 
	started_at TIMESTAMP WITH TIME ZONE NOT NULL, 
	ended_at TIMESTAMP WITH TIME ZONE, 
	error TEXT, 
	metrics JSON, 
	writer_host VARCHAR(255), 
	writer_pid INTEGER, 
	writer_start VARCHAR(40), 
	PRIMARY KEY (id), 
	FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE
);

CREATE INDEX ix_episodes_run_id ON episodes (run_id);

CREATE INDEX ix_episodes_started_at ON episodes (started_at);

CREATE INDEX ix_episodes_status ON episodes (status);

CREATE INDEX ix_episodes_task ON episodes (task);

CREATE TABLE run_leases (
	run_id VARCHAR(32) NOT NULL, 
	token VARCHAR(32) NOT NULL, 
	renewed_at FLOAT NOT NULL, 
	PRIMARY KEY (run_id), 
	FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE
);

CREATE TABLE episode_contexts (
	episode_id VARCHAR(32) NOT NULL, 
	context JSON NOT NULL, 
	world_map JSON, 
	PRIMARY KEY (episode_id), 
	FOREIGN KEY(episode_id) REFERENCES episodes (id) ON DELETE CASCADE
);

CREATE TABLE episode_messages (
	episode_id VARCHAR(32) NOT NULL, 
	seq INTEGER NOT NULL, 
	role VARCHAR(20) NOT NULL, 
	content_sha256 VARCHAR(64) NOT NULL, 
	extra JSON, 
	PRIMARY KEY (episode_id, seq), 
	FOREIGN KEY(episode_id) REFERENCES episodes (id) ON DELETE CASCADE, 
	FOREIGN KEY(content_sha256) REFERENCES blobs (sha256)
);

CREATE TABLE episode_sources (
	episode_id VARCHAR(32) NOT NULL, 
	name TEXT NOT NULL, 
	text TEXT NOT NULL, 
	sha256 VARCHAR(64) NOT NULL, 
	PRIMARY KEY (episode_id), 
	FOREIGN KEY(episode_id) REFERENCES episodes (id) ON DELETE CASCADE
);

CREATE TABLE turns (
	id SERIAL NOT NULL, 
	episode_id VARCHAR(32) NOT NULL, 
	index INTEGER NOT NULL, 
	observation JSON NOT NULL, 
	answer TEXT NOT NULL, 
	script JSON, 
	parse_error JSON, 
	compile_error TEXT, 
	actions JSON NOT NULL, 
	reward FLOAT NOT NULL, 
	total_reward FLOAT NOT NULL, 
	health FLOAT, 
	done BOOLEAN NOT NULL, 
	timings JSON NOT NULL, 
	input_tokens INTEGER NOT NULL, 
	output_tokens INTEGER NOT NULL, 
	cost_usd FLOAT NOT NULL, 
	latency_s FLOAT NOT NULL, 
	cached BOOLEAN NOT NULL, 
	created_at FLOAT NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_turns_episode_index UNIQUE (episode_id, index), 
	FOREIGN KEY(episode_id) REFERENCES episodes (id) ON DELETE CASCADE
);

CREATE TABLE messages (
	turn_id INTEGER NOT NULL, 
	position INTEGER NOT NULL, 
	role VARCHAR(20) NOT NULL, 
	content_sha256 VARCHAR(64) NOT NULL, 
	extra JSON, 
	PRIMARY KEY (turn_id, position), 
	FOREIGN KEY(turn_id) REFERENCES turns (id) ON DELETE CASCADE, 
	FOREIGN KEY(content_sha256) REFERENCES blobs (sha256)
);

CREATE TABLE model_calls (
	turn_id INTEGER NOT NULL, 
	finish_reason VARCHAR(40), 
	retries INTEGER NOT NULL, 
	provider_input_tokens INTEGER, 
	provider_output_tokens INTEGER, 
	provider_cached_tokens INTEGER, 
	our_input_tokens INTEGER, 
	warning TEXT, 
	PRIMARY KEY (turn_id), 
	FOREIGN KEY(turn_id) REFERENCES turns (id) ON DELETE CASCADE
);

CREATE TABLE turn_prompts (
	turn_id INTEGER NOT NULL, 
	spans JSON NOT NULL, 
	PRIMARY KEY (turn_id), 
	FOREIGN KEY(turn_id) REFERENCES turns (id) ON DELETE CASCADE
);
