package edu.fileproxy.testbed.analysis;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.de.GermanAnalyzer;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.AnalyzerFactory;

/**
 * The analyzer `german`, as Elasticsearch's analysis-common module defines it when a mapping names it without
 * settings: Lucene's GermanAnalyzer with its default stop words and no stem exclusions (standard tokenizer,
 * lowercase, German stop words, German normalization, German light stemmer).
 * The testbed's Elasticsearch lacks that module; this stands in for it, built from the same Lucene class.
 */
@NamedComponent("german")
public final class GermanAnalyzerFactory implements AnalyzerFactory {
    @Override
    public Analyzer create() {
        return new GermanAnalyzer();
    }
}
