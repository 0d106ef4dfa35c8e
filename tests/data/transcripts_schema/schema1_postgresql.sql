-- Transcript tables as made by agentkit's first release (commit ba8ce12: runs, episodes, turns, messages, blobs; no agentkit_schema table),
-- compiled by SQLAlchemy for postgresql from that release's transcripts/schema.py. Test fixture for tests/test_migrations.py.

CREATE TABLE blobs (
	sha256 VARCHAR(64) NOT NULL, 
	media_type VARCHAR(100) NOT NULL, 
	data BYTEA NOT NULL, 
	size INTEGER NOT NULL, 
	PRIMARY KEY (sha256)
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
