package ragbench;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.elasticsearch.plugin.NamedComponent;
import org.elasticsearch.plugin.analysis.AnalyzerFactory;

/**
 * The "lucene_english" analyzer: Lucene's EnglishAnalyzer as it is (standard
 * tokenizer, English possessive filter, lowercase, Lucene's 33 English stop
 * words, Porter stemmer), the analyzer of Pyserini's BEIR indexes and of
 * Elasticsearch's own "english" analyzer. The Elasticsearch integ-test zip on
 * Maven Central ships without the analysis-common module that defines
 * "english"; this stable plugin gives the same analysis from the Lucene jars
 * the zip does ship.
 */
@NamedComponent("lucene_english")
public class LuceneEnglish implements AnalyzerFactory {
    @Override
    public Analyzer create() {
        return new EnglishAnalyzer();
    }
}
